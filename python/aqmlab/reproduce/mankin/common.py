"""What the Mankin 1990 reproductions share: the policies, the published numbers' lookups, the
chance spreads of the paper's counts, the measures of a run and the experiment of one testbed set-up."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping

import pandas as pd

from aqmlab.reproduce.base import PAPERS_DIR, Condition, Experiment, Reference, value_of
from aqmlab.reproduce.mankin.explanations import (
    CLAIM_WHY,
    DELAY_LOWER_ON_WHY,
    DELAY_SD_WHY,
    DELAY_SD_WHY_ON,
    DELAY_WHY,
    DELAY_WHY_GW4,
    JAIN_WHY,
    LR_DROP_WHY,
    LR_THROUGHPUT_WHY,
    OVERFLOW_WHY,
    SR_DROP_WHY,
    SR_THROUGHPUT_WHY,
    ZERO_WHY,
)
from aqmlab.reproduce.plots import paper_beside_bars, save
from aqmlab.reproduce.published import Number, cite, series
from aqmlab.theory import jain

PAPER = "Mankin, Random Drop Congestion Control, SIGCOMM 1990"

ON, OFF = "random_drop", "droptail"  # "RDCR on", "RDCR off"
CONDITIONS = ((ON, "RDCR on"), (OFF, "RDCR off"))
RDCR = {"on": ON, "off": OFF}
QUEUE = {ON: '{discipline = "random_drop", limit = 30}', OFF: '{discipline = "droptail", limit = 30}'}

#: The paper's measurement interval (s) and segment size (B): they turn its throughputs into
#: the packet counts behind its percentages.
INTERVAL_S = 360.0
MSS = 512

# ---------------------------------------------------------------------------------------------
# The published numbers: scenarios/papers/mankin-1990/published.toml.

PAPER_DIR = "mankin-1990"


def table1(exp: str, cls: str, rdcr: str) -> dict[str, Number]:
    """Table 1, probability of drop (%), by gateway ("--" cells absent)."""
    return series(PAPER_DIR, f"table1.{exp}.{cls}.{rdcr}")


def table2(exp: str) -> dict[str, Number]:
    """Table 2, LR arrivals in overflow position with RDCR on (%), by gateway."""
    return series(PAPER_DIR, f"table2.{exp}")


def table3(what: str, exp: str, cls: str, rdcr: str) -> dict[str, Number]:
    """Table 3, queueing delay (s) at the bottlenecks: ``what`` is "mean" or "sd"."""
    return series(PAPER_DIR, f"table3.{what}.{exp}.{cls}.{rdcr}")


def table4(cls: str, rdcr: str) -> dict[str, Number]:
    """Table 4, average connection throughput (B/s), by experiment."""
    return series(PAPER_DIR, f"table4.{cls}.{rdcr}")


def table5(rdcr: str) -> dict[str, Number]:
    """Table 5, Jain's index over the SR connections, by experiment."""
    return series(PAPER_DIR, f"table5.{rdcr}")


GATEWAYS = ("GW1", "GW3", "GW4")  # the columns of the paper's tables

# ---------------------------------------------------------------------------------------------
# Tolerances: the paper's numbers are single runs; where they are counts, its own sampling error.


def packets(exp: str, cls: str, rdcr: str) -> float:
    """Packets of a class through its bottleneck in the paper's 360 s (from Table 4): the
    denominators behind Tables 1 and 2 (Exp. II LR off: 30 B/s x 360 s / 512 B = 21; 22.73% is
    5 of 22)."""
    return table4(cls, rdcr)[exp].value * INTERVAL_S / MSS * (6 if cls == "SR" else 1)


def binomial_spread(pct: float, n: float) -> tuple[str, float]:
    """The chance spread of a percentage of n packets: two binomial standard errors, in points
    (a 0 printed from a handful of packets is read as at most one of them)."""
    p = min(max(pct / 100, 1 / n), 0.5) if n > 0 else 0.5
    return ("binomial 2 s.e.", 200 * math.sqrt(p * (1 - p) / max(n, 1)))


def count_spread(value: float, n: float) -> tuple[str, float]:
    """The chance spread of a rate counted over n packets: a fraction 2 / sqrt(n) of it."""
    return ("count 2 sqrt(n)", value * 2 / math.sqrt(max(n, 1)))


# ---------------------------------------------------------------------------------------------
# Measuring


def _nan_if_none(value: float | None) -> float:
    """A measure with no value (Jain's index of no throughput) as NaN, the tables' blank."""
    return math.nan if value is None else value


def pooled_delay(part: pd.DataFrame) -> tuple[float, float]:
    """Mean and standard deviation of the queueing delay over the departures of several flows."""
    part = part[part["departures"] > 0]
    n = part["departures"].astype(float)
    if n.sum() <= 0:
        return math.nan, math.nan
    m = part["mean_qdelay_s"].astype(float)
    s = part["sd_qdelay_s"].astype(float)
    mean = float((n * m).sum() / n.sum())
    second = float((n * (s * s + m * m)).sum() / n.sum())
    return mean, math.sqrt(max(second - mean * mean, 0.0))


def pct(num: float, den: float) -> float:
    return 100.0 * num / den if den > 0 else math.nan


#: The gateways' processing time, from the physics before any run with it: the testbed's
#: gateways were MicroVAX II machines (about 0.9 VAX MIPS) running 4.3BSD; forwarding an IP packet
#: (input, route lookup, output queueing) is of the order of a thousand to two thousand
#: instructions, 1-2 ms, and its variation (the interrupts of the SLIP character lines and of the
#: LAN) of the same order. Each gateway holds each packet it forwards into a SLIP line for a time
#: drawn uniformly from [0, 2 ms], under 1% of a 289 ms SLIP packet time.
PROCESSING_JITTER_MS = 2.0

# ---------------------------------------------------------------------------------------------
# Trend rules: the paper's qualitative findings, checked on one experiment's summary.


def _lower(q: str, a: str = ON, b: str = OFF):
    return lambda s: value_of(s, q, a) < value_of(s, q, b)


#: What `own_clocks = False` sets on every connection: one clock for every host's timers, every
#: segment ACKed at once, and RFC 5681's threshold after a timeout and linear opening from the
#: threshold on (the model used before).
ONE_CLOCK_HOSTS = {
    "delayed_ack": "false",
    "tick_phase": "aligned",
    "timeout_ssthresh": "half_flight",
    "slow_start_at_ssthresh": "false",
}
#: What `tahoe_timers = False` sets on every connection: RFC 6298's retransmission timer.
RFC6298_TIMERS = {"rtt_timing": "every_ack", "rto_k": "4", "rtt_count_from": "0", "clear_srtt_after_backoffs": "0"}


class MankinExperiment(Experiment):
    """One of the three testbeds, RDCR on and off."""

    exp = ""  # "I", "II", "III"
    bottlenecks = 1
    #: SLIP links (each sets both directions of the link); RDCR goes on every one.
    slip_links: tuple[str, ...] = ()
    #: Table column -> the link direction that is that gateway's output for LR's data.
    gw_links: Mapping[str, str] = {}
    #: Table columns at which an SR group queues (the SR rows of Tables 1 and 3).
    sr_gateways: tuple[str, ...] = ()
    paper = PAPER
    #: Long enough for every SR connection to start (the last at 30 s at the latest).
    reduced = {"simulation.duration": "60s", "simulation.warmup": "35s"}
    #: Each gateway holds each packet it forwards into a SLIP line for U[0, this] ms (see
    #: PROCESSING_JITTER_MS); 0 for exact timing.
    processing_jitter_ms: float = 0.0
    #: Every host keeps its own 4.3BSD clocks, as the scenario files state: a 500 ms slow timer
    #: and a 200 ms delayed-ACK clock at phases of its own. False: one clock for every host's
    #: timers and every segment ACKed at once (the model used before: `-one-clock`).
    own_clocks: bool = True
    #: The hosts' retransmission timers are 4.3BSD-Tahoe's, as the scenario files state: one
    #: segment timed at a time from a count of 1, timeout srtt + 2 rttvar, srtt cleared from the
    #: fourth back-off. False: RFC 6298's (a sample from every ACK, srtt + 4 rttvar), side by side
    #: as `-rfc6298-timers` and in `-one-clock`.
    tahoe_timers: bool = True

    def flow_names(self) -> list[str]:
        """The connections of the scenario file (every one is named: no templates)."""
        return [f["name"] for f in tomllib.loads((PAPERS_DIR / self.scenario).read_text())["flow"]]

    def conditions(self):
        jitter = (
            {f"link.{link}.processing_jitter": f"{self.processing_jitter_ms:.1f}ms" for link in self.slip_links}
            if self.processing_jitter_ms > 0
            else {}
        )
        reverted = {**({} if self.own_clocks else ONE_CLOCK_HOSTS), **({} if self.tahoe_timers else RFC6298_TIMERS)}
        hosts = {f"flow.{name}.{key}": value for name in self.flow_names() for key, value in reverted.items()}
        return [
            Condition(c, {**{f"link.{link}.queue": QUEUE[c] for link in self.slip_links}, **jitter, **hosts})
            for c, _ in CONDITIONS
        ]

    # -- measuring ------------------------------------------------------------------------------

    def measure(self, tables):
        flows, lf = tables["flows"], tables["link_flows"]
        rows = []
        for (cond, seed), f in flows.groupby(["condition", "seed"], sort=False):
            links = lf[(lf["condition"] == cond) & (lf["seed"] == seed)]
            sr = f[f["group"].fillna("").str.startswith("sr")]
            # In the order the flows table lists them: a set's order follows the interpreter's
            # string hashing, and the mean and Jain index summed in it changed in the last digit
            # from one process to the next.
            sr_names = list(dict.fromkeys(sr["name"]))

            def add(quantity, value, cond=cond, seed=seed):
                rows.append((cond, seed, quantity, value))

            sr_drops = sr_arrivals = lr_drop_sum = lr_overflow_sum = 0.0
            lr_at_bottlenecks = []
            for gw, link in self.gw_links.items():
                at = links[links["link"] == link]
                for cls, part in (("LR", at[at["flow"] == "lr"]), ("SR", at[at["flow"].isin(sr_names)])):
                    if cls == "SR" and gw not in self.sr_gateways:
                        continue
                    arrivals = float(part["arrivals"].sum())
                    drops = float(part["drops"].sum())
                    drop = pct(drops, arrivals)
                    add(f"drop_pct:{cls}@{gw}", drop)
                    add(f"overflow_pct:{cls}@{gw}", pct(float(part["overflow_arrivals"].sum()), arrivals))
                    mean, sd = pooled_delay(part)
                    add(f"qdelay_mean_s:{cls}@{gw}", mean)
                    add(f"qdelay_sd_s:{cls}@{gw}", sd)
                    if cls == "SR":
                        sr_drops += drops
                        sr_arrivals += arrivals
                        continue
                    if gw in self.sr_gateways:
                        lr_at_bottlenecks.append(part)
                    if arrivals:
                        lr_drop_sum += drop
                        lr_overflow_sum += pct(float(part["overflow_arrivals"].sum()), arrivals)
            # Over the bottlenecks together: LR's percentages summed over its gateways (about the
            # chance that an LR packet is dropped somewhere on its path), SR's drops over SR's
            # arrivals (each SR packet meets one bottleneck).
            add("path_drop_pct:LR", lr_drop_sum)
            add("path_overflow_pct:LR", lr_overflow_sum)
            add("path_drop_pct:SR", pct(sr_drops, sr_arrivals))
            add(
                "qdelay_mean_s:LR@bottlenecks",
                pooled_delay(pd.concat(lr_at_bottlenecks))[0] if lr_at_bottlenecks else math.nan,
            )
            # Throughput: application bytes delivered in the measurement window, per second.
            thr = f.set_index("name")["goodput_bps"].astype(float) / 8
            add("throughput_Bps:LR", float(thr.get("lr", math.nan)))
            add("throughput_Bps:SR", float(thr[sr_names].mean()) if sr_names else math.nan)
            sr_mean = float(thr[sr_names].mean()) if sr_names else math.nan
            add("lr_over_sr", float(thr.get("lr", math.nan)) / sr_mean if sr_mean > 0 else math.nan)
            add("sr_jain", _nan_if_none(jain(thr[sr_names])))
            for g, members in sr.groupby("group"):
                add(f"sr_jain:{g}", _nan_if_none(jain(thr[list(members["name"])])))
            for name, v in thr.items():
                add(f"throughput_Bps:{name}", float(v))
        return pd.DataFrame(rows, columns=["condition", "seed", "quantity", "value"])

    # -- the paper's findings, as rules on one experiment's summary -------------------------------

    def findings(self) -> dict[str, tuple[str, object]]:
        """The paper's qualitative findings that one experiment can check: name -> (text, rule)."""
        k = self.bottlenecks
        v = value_of
        lr_drop = "path_drop_pct:LR"
        rules: dict[str, tuple[str, object]] = {
            "lr_dropped_more_off": (
                "with RDCR off, LR (the least frequent sender) is dropped more often than SR over the bottlenecks (5.1)",
                lambda s: v(s, lr_drop, OFF) > v(s, "path_drop_pct:SR", OFF),
            ),
            "sr_dropped_less_on": (
                "with RDCR on, SR is still dropped less often than LR over the bottlenecks (5.1)",
                lambda s: v(s, "path_drop_pct:SR", ON) < v(s, lr_drop, ON),
            ),
            "lr_delay_lower_on": (
                "LR's queueing delay is lower with RDCR than without at every bottleneck (5.3)",
                lambda s: all(
                    v(s, f"qdelay_mean_s:LR@{gw}", ON) < v(s, f"qdelay_mean_s:LR@{gw}", OFF) for gw in self.sr_gateways
                ),
            ),
            "sr_fairness_up": (
                "RDCR raises the SR connections' throughput fairness (5.5, Table 5)",
                lambda s: v(s, "sr_jain", ON) > v(s, "sr_jain", OFF),
            ),
            "sr_more_than_lr": (
                "an SR connection gets more throughput than LR, the least frequent sender (5.1, Table 4)",
                lambda s: all(v(s, "throughput_Bps:SR", c) > v(s, "throughput_Bps:LR", c) for c in (ON, OFF)),
            ),
        }
        if k == 1:
            rules["rdcr_vs_lr_drop"] = (
                "with a single bottleneck, RDCR raises LR's probability of drop (5.1, 5.6: 5.56% vs 3.87%)",
                lambda s: v(s, lr_drop, ON) > v(s, lr_drop, OFF),
            )
            rules["overflow_mechanism"] = (
                "with a single bottleneck, LR arrives in overflow position less often than RDCR drops it, so RDCR hurts LR (5.6)",
                lambda s: v(s, "path_overflow_pct:LR", ON) < v(s, lr_drop, ON),
            )
            rules["lr_throughput"] = (
                "with a single bottleneck, LR's throughput is close to an SR connection's (5.6): over half of it",
                lambda s: all(v(s, "throughput_Bps:LR", c) > 0.5 * v(s, "throughput_Bps:SR", c) for c in (ON, OFF)),
            )
        else:
            rules["rdcr_vs_lr_drop"] = (
                f"RDCR lowers LR's probability of drop over the {k} bottlenecks (5.1)",
                lambda s: v(s, lr_drop, ON) < v(s, lr_drop, OFF),
            )
            rules["overflow_mechanism"] = (
                "behind several bottlenecks, LR arrives in overflow position at least as often as RDCR drops it, so RDCR helps LR (5.6)",
                lambda s: v(s, "path_overflow_pct:LR", ON) >= v(s, lr_drop, ON),
            )
            rules["lr_throughput"] = (
                f"LR's throughput stays below its window/RTT ceiling of 1/{k} of an SR connection's, with and without RDCR (5.4)",
                lambda s: all(v(s, "throughput_Bps:LR", c) < v(s, "throughput_Bps:SR", c) / k for c in (ON, OFF)),
            )
            rules["lr_throughput_up"] = (
                "RDCR improves LR's throughput slightly in the multi-bottleneck experiments (5.4)",
                lambda s: v(s, "throughput_Bps:LR", ON) > v(s, "throughput_Bps:LR", OFF),
            )
        return rules

    # -- the paper's numbers --------------------------------------------------------------------

    def references(self):
        e = self.exp
        multi = self.bottlenecks > 1
        rules = self.findings()
        refs: list[Reference] = []
        # Table 1
        for cls in ("LR", "SR"):
            for rdcr in ("on", "off"):
                cond = RDCR[rdcr]
                for gw, n in table1(e, cls, rdcr).items():
                    q = f"drop_pct:{cls}@{gw}"
                    other = table1(e, "LR", "on" if rdcr == "off" else "off")
                    if cls == "SR":
                        trend, why = rules["sr_dropped_less_on" if rdcr == "on" else "lr_dropped_more_off"], SR_DROP_WHY
                    elif n.value == 0 and other[gw].value == 0:
                        trend, why = None, ZERO_WHY  # LR meets no competing traffic there: zero both ways
                    elif multi and table1(e, "LR", "on")[gw].value < table1(e, "LR", "off")[gw].value:
                        trend = (f"RDCR lowers LR's probability of drop at {gw} (5.1)", _lower(q))
                        why = LR_DROP_WHY
                    else:  # Exp. I, and Exp. III at GW4 (1 of 20 vs 0 of 17): the claim is about the path
                        trend, why = rules["rdcr_vs_lr_drop"], LR_DROP_WHY
                    refs.append(
                        cite(
                            n,
                            q,
                            cond,
                            spread=binomial_spread(n.value, packets(e, cls, rdcr)),
                            trend=trend,
                            explanation=why,
                        )
                    )
        # Table 2
        for gw, n in table2(e).items():
            structural = n.value == 0 and table1(e, "LR", "off")[gw].value == 0 and table1(e, "LR", "on")[gw].value == 0
            refs.append(
                cite(
                    n,
                    f"overflow_pct:LR@{gw}",
                    ON,
                    spread=binomial_spread(n.value, packets(e, "LR", "on")),
                    trend=None if structural else rules["overflow_mechanism"],
                    explanation=ZERO_WHY if structural else OVERFLOW_WHY,
                )
            )
        # Table 3
        for cls in ("LR", "SR"):
            for rdcr in ("on", "off"):
                cond = RDCR[rdcr]
                for gw, n in table3("mean", e, cls, rdcr).items():
                    qm = f"qdelay_mean_s:{cls}@{gw}"
                    refs.append(
                        cite(
                            n,
                            qm,
                            cond,
                            tolerance=0.10,
                            trend=(
                                f"the queueing delay at a bottleneck is lower with RDCR than without ({cls}, {gw}; 5.3)",
                                _lower(qm),
                            ),
                            explanation=(DELAY_WHY_GW4 if (e, gw) == ("III", "GW4") else DELAY_WHY)
                            + "; and "
                            + DELAY_LOWER_ON_WHY,
                        )
                    )
                for gw, n in table3("sd", e, cls, rdcr).items():
                    why = DELAY_SD_WHY_ON if rdcr == "on" else DELAY_SD_WHY
                    refs.append(cite(n, f"qdelay_sd_s:{cls}@{gw}", cond, tolerance=0.30, explanation=why))
        # Table 4
        for rdcr in ("on", "off"):
            trend = rules["lr_throughput_up"] if multi and rdcr == "on" else rules["lr_throughput"]
            n = table4("LR", rdcr)[e]
            refs.append(
                cite(
                    n,
                    "throughput_Bps:LR",
                    RDCR[rdcr],
                    spread=count_spread(n.value, packets(e, "LR", rdcr)),
                    trend=trend,
                    explanation=LR_THROUGHPUT_WHY,
                )
            )
        for rdcr in ("on", "off"):
            refs.append(
                cite(
                    table4("SR", rdcr)[e],
                    "throughput_Bps:SR",
                    RDCR[rdcr],
                    tolerance=0.10,
                    trend=rules["sr_more_than_lr"],
                    explanation=SR_THROUGHPUT_WHY,
                )
            )
        # Table 5
        for rdcr, tolerance in (("on", 0.05), ("off", 0.10)):
            refs.append(
                cite(
                    table5(rdcr)[e],
                    "sr_jain",
                    RDCR[rdcr],
                    tolerance=tolerance,
                    trend=rules["sr_fairness_up"],
                    explanation=JAIN_WHY,
                )
            )
        # Sec. 5.4: LR's ceiling behind several bottlenecks, window / RTT.
        if multi:
            for rdcr in ("on", "off"):
                refs.append(
                    cite(
                        series(PAPER_DIR, "text.lr_ceiling")[e],
                        "lr_over_sr",
                        RDCR[rdcr],
                        explanation="see the Table 4 rows: " + LR_THROUGHPUT_WHY,
                    )
                )
        # The findings themselves, one row each (no number: "same-trend" when it holds, else "differs"),
        # so that a number matching within its wide tolerance cannot hide a finding that fails.
        claim_rows = [
            ("lr_dropped_more_off", "path_drop_pct:LR", OFF, "5.1 text, Table 1"),
            ("sr_dropped_less_on", "path_drop_pct:SR", ON, "5.1 text, Table 1"),
            ("rdcr_vs_lr_drop", "path_drop_pct:LR", ON, "5.1, 5.6 text, Table 1"),
            ("overflow_mechanism", "path_overflow_pct:LR", ON, "5.2, 5.6 text, Tables 1-2"),
            ("lr_delay_lower_on", "qdelay_mean_s:LR@bottlenecks", ON, "5.3 text, Table 3"),
            ("lr_throughput", "throughput_Bps:LR", OFF, "5.4, 5.6 text, Table 4"),
            ("lr_throughput_up", "throughput_Bps:LR", ON, "5.4 text, Table 4"),
            ("sr_fairness_up", "sr_jain", ON, "5.5 text, Table 5"),
        ]
        for name, quantity, cond, source in claim_rows:
            if name in rules:
                refs.append(
                    Reference(quantity, cond, math.nan, source, "text", trend=rules[name], explanation=CLAIM_WHY[name])
                )
        return refs

    # -- figures --------------------------------------------------------------------------------

    def figures(self, measured, summary, outdir):
        import matplotlib.pyplot as plt

        e = self.exp
        paper: dict[tuple[str, str], float] = {}
        for cls in ("LR", "SR"):
            for rdcr in ("on", "off"):
                cond = RDCR[rdcr]
                paper.update({(f"drop_pct:{cls}@{gw}", cond): n.value for gw, n in table1(e, cls, rdcr).items()})
                for what in ("mean", "sd"):
                    paper.update(
                        {(f"qdelay_{what}_s:{cls}@{gw}", cond): n.value for gw, n in table3(what, e, cls, rdcr).items()}
                    )
                paper[(f"throughput_Bps:{cls}", cond)] = table4(cls, rdcr)[e].value
            paper.update({(f"overflow_pct:LR@{gw}", ON): n.value for gw, n in table2(e).items()})
        for rdcr in ("on", "off"):
            paper[("sr_jain", RDCR[rdcr])] = table5(rdcr)[e].value

        fig, axes = plt.subplots(2, 3, figsize=(13, 6.5))
        gws = list(self.gw_links)
        both = [
            (f"{cls}\n{gw}", f"drop_pct:{cls}@{gw}")
            for cls in ("LR", "SR")
            for gw in gws
            if cls == "LR" or gw in self.sr_gateways
        ]
        paper_beside_bars(axes[0, 0], summary, both, CONDITIONS, paper)
        axes[0, 0].set_title("Table 1: probability of drop")
        axes[0, 0].set_ylabel("drops / arrivals (%)")
        paper_beside_bars(
            axes[0, 1], summary, [(f"LR\n{gw}", f"overflow_pct:LR@{gw}") for gw in gws], CONDITIONS[:1], paper
        )
        axes[0, 1].set_title("Table 2: LR arrivals in overflow position (RDCR on)")
        axes[0, 1].set_ylabel("arrivals finding the queue full (%)")
        bottleneck = [(cls, gw) for cls in ("LR", "SR") for gw in self.sr_gateways]
        paper_beside_bars(
            axes[0, 2], summary, [(f"{c}\n{g}", f"qdelay_mean_s:{c}@{g}") for c, g in bottleneck], CONDITIONS, paper
        )
        axes[0, 2].set_title("Table 3: queueing delay, mean")
        axes[0, 2].set_ylabel("s")
        paper_beside_bars(
            axes[1, 0], summary, [(f"{c}\n{g}", f"qdelay_sd_s:{c}@{g}") for c, g in bottleneck], CONDITIONS, paper
        )
        axes[1, 0].set_title("Table 3: queueing delay, standard deviation")
        axes[1, 0].set_ylabel("s")
        paper_beside_bars(
            axes[1, 1], summary, [("LR", "throughput_Bps:LR"), ("SR (mean)", "throughput_Bps:SR")], CONDITIONS, paper
        )
        axes[1, 1].set_title("Table 4: throughput per connection")
        axes[1, 1].set_ylabel("application bytes / s")
        paper_beside_bars(axes[1, 2], summary, [("SR", "sr_jain")], CONDITIONS, paper)
        axes[1, 2].set_ylim(0, 1.05)
        axes[1, 2].set_xlim(-1, 1)
        axes[1, 2].set_title("Table 5: SR throughput fairness (Jain)")
        axes[0, 0].legend(fontsize=7)
        fig.suptitle(
            f"Mankin 1990, Exp. {e} ({self.bottlenecks} bottleneck{'s' if self.bottlenecks > 1 else ''}): "
            "aqmlab (bars, 95% intervals over seeds) and the paper (diamonds)",
            fontsize=10,
        )
        return save(fig, outdir / f"exp{len(e)}_tables")
