"""DKS 1989 Fig. 1 (section 2.3): the Telnet delay-throughput curves, N = 3 FTPs, W = 5."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

from aqmlab.reproduce.base import Condition, Experiment, Reference, value_of
from aqmlab.reproduce.dks.common import NAN, PAPER, PAPER_DIR, frame, num
from aqmlab.reproduce.plots import save
from aqmlab.reproduce.published import cite, series

FIG1_N, FIG1_W = 3, 5
P_OVER_MU = 1000 * 8 / 56000  # s: one packet time on the 56 kbps line
FAIR_BPS = 56000 / (FIG1_N + 1)
FIG1_RHOS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
FIG1_FCFS_HIGH = [1.5, 2.0, 3.0]
RHO_ZERO = 0.002  # "rho -> 0": 400 000 s for ~1400 Telnet packets
FIG1_QUEUES = {
    "FCFS": '{discipline = "droptail", limit = "unbounded"}',
    "FQ delta=0": '{discipline = "fq", limit = "unbounded"}',
    "FQ delta=P": '{discipline = "fq", limit = "unbounded", delta = 1000}',
}
FIG1_DELTA = {"FQ delta=0": 0.0, "FQ delta=P": 1.0}


def fig1_label(disc: str, rho: float) -> str:
    return f"{disc} rho={rho:g}"


class Fig1(Experiment):
    id = "dks-1989-fig1"
    paper = PAPER
    title = "Telnet queueing delay against throughput: FCFS and FQ (delta = 0, delta = P), theory and simulation"
    source = "Fig. 1 (section 2.3)"
    scenario = "dks-1989/fig1.toml"
    reduced = {"simulation.duration": "2200s", "simulation.warmup": "200s"}
    notes = """A Poisson Telnet with packets of the FTPs' size P shares a gateway with N = 3 FTPs of window 5
that always have packets ready; its throughput rho is relative to its fair share (1/4 of the
line) and its delay is its mean wait in the gateway queue in units of P/mu. The paper's curves
are analytic; we simulate the same set-up (unbounded buffers, so nothing is dropped) at
rho = 0.05 ... 0.9 for FCFS, FQ with delta = 0 and FQ with delta = P, FCFS also at 1.5, 2 and 3,
and every discipline at rho = 0.002 over 400 000 s for the rho -> 0 limits. The paper prints
those limits, (NW - 1/2)P = 14.5P for FCFS, NP/2 = 1.5P for FQ with delta = 0 and P/2 for
delta = P, and says FQ's delay diverges as rho -> 1 while FCFS's stays finite for rho < N + 1;
these are the rows compared (tolerance 5%: at rho = 0.002 the theory is within 1% of its limit).

The theory curves come from `aqmlab.theory`: `dks_fcfs_telnet_delay`, (NW - 1/2 + x)/(1 - x)
with x = rho/(N + 1) (our derivation from the paper's assumptions), and `dks_fq_telnet_delay`, the paper's
nonpreemptive FQ formula. That formula's first term is printed as rho/(2(1 - rho)); the paper's
text says the bit-by-bit round robin delay is D_0((N + 1)P_T), which for a Poisson source is
(N + 1) rho/(2(1 - rho)). The simulation follows the latter closely (both are drawn; the
`delay_P` rows at rho = 0.3, 0.6 compare with the printed formula and carry the trend that FQ's
delay grows with rho and stays far below FCFS's). `share` is the Telnet's delivered rate over its
fair share: at rho = 3 FCFS lets it take three times its share."""

    def conditions(self):
        out = []
        for disc, q in FIG1_QUEUES.items():
            rhos = [RHO_ZERO] + FIG1_RHOS + (FIG1_FCFS_HIGH if disc == "FCFS" else [])
            for rho in rhos:
                ov = {"link.gateway.queue": q, "flow.telnet.rate": f"{rho * FAIR_BPS:.6g}bps"}
                if rho == RHO_ZERO:
                    ov.update({"simulation.duration": "400200s"})
                out.append(Condition(fig1_label(disc, rho), ov))
        return out

    def measure(self, tables):
        lf, flows = tables["link_flows"], tables["flows"]
        rows = []
        tel = lf[(lf["link"] == "gateway") & (lf["flow"] == "telnet")]
        for _, r in tel.iterrows():
            rows.append((r["condition"], r["seed"], "delay_P", float(r["mean_qdelay_s"]) / P_OVER_MU))
        for _, r in flows[flows["name"] == "telnet"].iterrows():
            rows.append((r["condition"], r["seed"], "share", float(r["throughput_bps"]) / FAIR_BPS))
        for (cond, seed), run in flows[flows["group"] == "ftp"].groupby(["condition", "seed"], sort=False):
            rows.append((cond, seed, "ftp_drops", float(run["dropped_pkts"].sum())))
        return frame(rows)

    def references(self):
        def increasing(disc):
            def rule(s):
                ys = [value_of(s, "delay_P", fig1_label(disc, r)) for r in [RHO_ZERO] + FIG1_RHOS]
                return all(b > a - 0.05 * abs(a) for a, b in pairwise(ys))

            return rule

        diverges = (
            "FQ's delay grows with rho and is at least 5x its rho -> 0 value at rho = 0.9 (diverging as rho -> 1)",
            lambda s: all(
                increasing(d)(s)
                and value_of(s, "delay_P", fig1_label(d, 0.9)) > 5 * value_of(s, "delay_P", fig1_label(d, RHO_ZERO))
                for d in ("FQ delta=0", "FQ delta=P")
            ),
        )
        below = (
            "FQ's delay grows with rho and stays far below FCFS's (under a third) up to rho = 0.6",
            lambda s: all(
                increasing(d)(s)
                and all(
                    value_of(s, "delay_P", fig1_label(d, r)) < value_of(s, "delay_P", fig1_label("FCFS", r)) / 3
                    for r in FIG1_RHOS[:7]
                )
                for d in ("FQ delta=0", "FQ delta=P")
            ),
        )
        finite = (
            "FCFS's delay stays finite beyond rho = 1, as its curve (NW - 1/2 + x)/(1 - x) says",
            lambda s: all(math.isfinite(value_of(s, "delay_P", fig1_label("FCFS", r))) for r in FIG1_FCFS_HIGH),
        )
        why_printed = (
            "the printed first term rho/(2(1-rho)) omits the factor N + 1 of the bit-by-bit round robin's own delay "
            "D_0((N+1)P) that the paper's text derives it from; with (N+1) rho/(2(1-rho)) the formula agrees with the "
            "simulation within a few per cent (see the figure's solid FQ curves)"
        )
        limit_why = {
            "FCFS": "FCFS's queue does not hold the NW = 15 FTP packets assumed",
            "FQ delta=0": "the FTPs' finish-number offsets differ from the paper's a/N",
            "FQ delta=P": "the FTPs' finish-number offsets differ from the paper's a/N, on which delta's gain depends",
        }
        refs = [
            cite(n, "delay_P", fig1_label(disc, RHO_ZERO), tolerance=0.05, explanation=limit_why[disc])
            for disc, n in series(PAPER_DIR, "fig1.limit").items()
        ]
        for d in ("FQ delta=0", "FQ delta=P"):
            refs.append(
                Reference(
                    "delay_P",
                    fig1_label(d, 0.9),
                    NAN,
                    "Fig. 1 text: FQ's delay diverges as rho -> 1",
                    "text",
                    trend=diverges,
                    explanation="FQ's simulated delay does not grow as the paper says",
                )
            )
            for rho in (0.3, 0.6):
                refs.append(
                    cite(
                        num(f"fig1.fq_formula.{d} rho={rho:g}"),
                        "delay_P",
                        fig1_label(d, rho),
                        trend=below,
                        explanation=why_printed,
                    )
                )
        for rho in (0.3, 0.6, 0.9, 2.0, 3.0):
            refs.append(
                cite(
                    num(f"fig1.fcfs_curve.{rho:g}"),
                    "delay_P",
                    fig1_label("FCFS", rho),
                    tolerance=0.05,
                    trend=finite,
                    explanation="the FTPs do not keep NW packets queued",
                )
            )
        refs.append(
            cite(
                num("fig1.fcfs_share_rho3"),
                "share",
                fig1_label("FCFS", 3.0),
                tolerance=0.05,
                explanation="FCFS does not deliver what the Telnet offers",
            )
        )
        return refs

    def figures(self, measured, summary, outdir):
        import matplotlib.pyplot as plt

        from aqmlab.theory import dks_fcfs_telnet_delay, dks_fq_telnet_delay

        fig, ax = plt.subplots(figsize=(7, 4.5))
        styles = {"FCFS": ("C3", "s"), "FQ delta=0": ("C0", "o"), "FQ delta=P": ("C2", "^")}
        xs_fq = np.linspace(0.0, 0.97, 200)
        xs_fcfs = np.linspace(0.0, 3.2, 200)
        ax.plot(
            xs_fcfs,
            [dks_fcfs_telnet_delay(x, FIG1_N, FIG1_W) for x in xs_fcfs],
            "-",
            color=styles["FCFS"][0],
            lw=1.2,
            label="FCFS theory",
        )
        for d, delta in FIG1_DELTA.items():
            c = styles[d][0]
            ax.plot(
                xs_fq,
                [dks_fq_telnet_delay(x, FIG1_N, delta, "br") for x in xs_fq],
                "-",
                color=c,
                lw=1.2,
                label=f"{d} theory, BR term (N+1)rho/2(1-rho)",
            )
            ax.plot(
                xs_fq,
                [dks_fq_telnet_delay(x, FIG1_N, delta) for x in xs_fq],
                ":",
                color=c,
                lw=1.2,
                label=f"{d} theory as printed",
            )
        for disc, (c, m) in styles.items():
            rhos = [RHO_ZERO] + FIG1_RHOS + (FIG1_FCFS_HIGH if disc == "FCFS" else [])
            ys, lo, hi = [], [], []
            for r in rhos:
                row = summary[(summary["quantity"] == "delay_P") & (summary["condition"] == fig1_label(disc, r))]
                y = float(row["sim_mean"].iloc[0]) if len(row) else NAN
                ys.append(y)
                low = float(row["ci95_low"].iloc[0]) if len(row) else NAN
                high = float(row["ci95_high"].iloc[0]) if len(row) else NAN
                lo.append(0 if math.isnan(low) else y - low)
                hi.append(0 if math.isnan(high) else high - y)
            ax.errorbar(rhos, ys, yerr=[lo, hi], fmt=m, color=c, ms=5, capsize=2, label=f"{disc} aqmlab")
        paper = [
            (r.condition, r.value) for r in self.references() if r.quantity == "delay_P" and not math.isnan(r.value)
        ]
        for disc, (c, m) in styles.items():
            pts = [
                (rho, v)
                for cond, v in paper
                for rho in [RHO_ZERO, *FIG1_RHOS, *FIG1_FCFS_HIGH]
                if cond == fig1_label(disc, rho)
            ]
            ax.plot([p for p, _ in pts], [v for _, v in pts], "D", mfc="none", mec="k", ms=7, label=None)
        ax.plot([], [], "D", mfc="none", mec="k", label="paper (printed limits, formula points)")
        ax.set_yscale("log")
        ax.set_ylim(0.3, 100)
        ax.set_xlim(0, 3.2)
        ax.axvline(1.0, color="0.7", lw=0.8, ls="--")
        ax.set_xlabel("Telnet throughput rho (relative to its fair share)")
        ax.set_ylabel("Telnet queueing delay (units of P/mu)")
        ax.set_title("DKS 1989 Fig. 1: delay vs. throughput, N = 3 FTPs, W = 5")
        ax.legend(fontsize=6.5, loc="lower right")
        return save(fig, outdir / "fig1")
