"""DKS 1989 scenario 6: a complicated network (its topology invented: the paper's figure is unreadable), 8
sources, mixed line rates, no overload."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aqmlab.reproduce.base import Reference
from aqmlab.reproduce.dks.common import COMMON_NOTES, NAN, POLICIES, WINDOW_S, DksScenario, _v, _window, num
from aqmlab.reproduce.published import cite


class Scenario6(DksScenario):
    id = "dks-1989-scenario6"
    number = 6
    title = "complicated network (topology invented): 8 sources, mixed line rates, no overload"
    source = "Scenario 6 (text only; table and figure unreadable, topology invented)"
    lines = ("g1g2", "g2g3", "g3g4")
    cc_flows = ("ftp1", "ftp2", "telnet3", "ftp4", "ftp5", "ftp6", "telnet7", "ftp8")
    buffer = 30
    columns = ["ftp1", "ftp2", "telnet3", "ftp4", "ftp5", "ftp6", "telnet7", "ftp8"]
    notes = (
        COMMON_NOTES
        + """

**The topology is invented** (the paper's figure and table are illegible): four gateways in a
chain joined by 56 kbps, 1.544 Mbps (T1) and 19.2 kbps lines; FTPs 1 and 2 share the 56 kbps line
one way and FTP 4 sends the other way, so its ACKs queue behind their data; FTPs 5 and 6 and
FTP 8 do the same on the 19.2 kbps line; Telnets 3 and 7 cross the whole chain in opposite
directions (see the scenario file). Gateway buffers are 30 packets so that, as the paper says,
no gateway is overloaded (at most 25 packets of window share any line). Only the text's claims
are compared, none of its numbers: no drops under any policy (`drops:all`); under FCFS sources
4 and 8 are limited by their ACKs' wait behind FTP data (`ack_wait_share:NAME` = the ACKs' mean
queueing delay on the reverse line over the source's mean RTT, above one half, while their own
line is less than 80% busy: `line_busy:NAME`); FQ raises the total throughput
(`total_throughput:ftp`, packets of the six FTPs in 500 s)."""
    )
    groups = {"ftp": ["ftp1", "ftp2", "ftp4", "ftp5", "ftp6", "ftp8"]}
    figure_groups: Mapping[str, Sequence[str]] = {}  # the FTPs are not interchangeable: one bar each
    #: source: (line its ACKs wait on, line its data uses)
    ACK_LINES = {"ftp4": ("g1g2", "g2->g1"), "ftp8": ("g3g4", "g4->g3")}

    def extra(self, tables):
        rows = []
        lf, links, flows = tables["link_flows"], tables["links"], tables["flows"]
        for (cond, seed), run in flows.groupby(["condition", "seed"], sort=False):
            scale = WINDOW_S / _window(run)
            rows.append((cond, seed, "drops:all", float(run["dropped_pkts"].sum() + run["ack_drops"].sum()) * scale))
            by = run.set_index("name")
            for name, (ack_line, data_line) in self.ACK_LINES.items():
                sel = lf[
                    (lf["condition"] == cond) & (lf["seed"] == seed) & (lf["link"] == ack_line) & (lf["flow"] == name)
                ]
                rtt = float(by.loc[name, "mean_rtt_s"])
                if len(sel) and rtt > 0:
                    rows.append((cond, seed, f"ack_wait_share:{name}", float(sel["mean_qdelay_s"].iloc[0]) / rtt))
                ln = links[(links["condition"] == cond) & (links["seed"] == seed) & (links["name"] == data_line)]
                if len(ln):
                    rows.append((cond, seed, f"line_busy:{name}", float(ln["utilization"].iloc[0])))
        return rows

    def claims(self):
        refs = []
        for p in POLICIES:
            refs.append(
                cite(
                    num(f"s6.drops_all.{p}"),
                    "drops:all",
                    p,
                    explanation="packets are dropped: see the scenario's buffers",
                )
            )
        for p in ("G/FCFS", "JK/FCFS"):
            for name in ("ftp4", "ftp8"):
                rule = (
                    f"{p}: {name} is held back by its ACKs (ACK wait > half its RTT) while its own line is < 80% busy",
                    lambda s, p=p, n=name: _v(s, f"ack_wait_share:{n}", p) > 0.5 and _v(s, f"line_busy:{n}", p) < 0.8,
                )
                refs.append(
                    Reference(
                        f"ack_wait_share:{name}",
                        p,
                        NAN,
                        f"Scenario 6 text: with FCFS, source {name[-1]} is limited by "
                        "the delay its ACKs incur behind FTP packets",
                        "text",
                        trend=rule,
                        explanation=f"{name} is not ACK-limited in the invented network",
                    )
                )
        for fq, fcfs in (("G/FQ", "G/FCFS"), ("JK/FQ", "JK/FCFS"), ("DEC/FQbit", "DEC/DEC")):
            rule = (
                f"total FTP throughput is higher under {fq} than under {fcfs} (by > 5%)",
                lambda s, a=fq, b=fcfs: _v(s, "total_throughput:ftp", a) > 1.05 * _v(s, "total_throughput:ftp", b),
            )
            refs.append(
                Reference(
                    "total_throughput:ftp",
                    fq,
                    NAN,
                    "Scenario 6 text: 'the total throughput increases when the FQ gateways are used'",
                    "text",
                    trend=rule,
                    explanation="FQ does not raise the total in the invented network",
                )
            )
        return refs
