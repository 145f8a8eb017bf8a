"""What the DKS 1989 reproductions share: the policy pairs, the measurement of a run, the pairing of
published numbers with sources by throughput rank, the scenario experiment and its figure."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.reproduce.base import Condition, Experiment, Reference, value_of
from aqmlab.reproduce.plots import save
from aqmlab.reproduce.published import Number, cite, number, series
from aqmlab.theory import jain

PAPER = "Demers, Keshav, Shenker, Analysis and Simulation of a Fair Queueing Algorithm, SIGCOMM 1989"
PAPER_DIR = "dks-1989"
NAN = math.nan


def num(key: str) -> Number:
    """A published number of the paper (scenarios/papers/dks-1989/published.toml)."""
    return number(PAPER_DIR, key)


#: The paper's measurement window and the gateway line it implies: 56 kbps carries 3500
#: packets of 1000 bytes in 500 s. Counts are reported per 500 s (reduced runs are scaled).
WINDOW_S = 500.0
LINE_PKTS = 3500.0

POLICIES = ["G/FCFS", "G/FQ", "JK/FCFS", "JK/FQ", "DEC/DEC", "DEC/FQbit"]
#: The policies whose gateway serves in arrival order (DEC/DEC's gateway is FCFS that sets bits).
FCFS_POLICIES = ("G/FCFS", "JK/FCFS", "DEC/DEC")
CC = {"G": "generic", "JK": "jk", "DEC": "decbit"}
#: Keys on every JK flow: a fast retransmit resends the lost packet alone and sending goes on
#: from where it stood. The paper builds JK on its generic flow control, which resends only the
#: packet it times out, adding 4.3BSD's ideas, fast retransmit among them; 4.3BSD-Tahoe's
#: tcp_input resumes at the old snd_nxt too. Going back N after it is ns-2's later Tahoe.
#: Its timeout calculation and window arithmetic are that code's too ("adjustable windows" and
#: "better timeout calculations" are among the ideas the paper names): 4.3BSD-Tahoe times one
#: segment at a time, times out at srtt + 2 rttvar with a floor of 1 s, doubles it on each
#: back-off up to 64 times, starts the estimate afresh from the fourth back-off in a row, leaves
#: half the window (not the flight) as the threshold after a timeout or a fast retransmit, and
#: opens the window linearly only above the threshold. Not that code's 64 s ceiling on the
#: timeout: the paper's scenario 3 settles it, its JK/FCFS FTP resending 2 packets in a 500 s
#: window it is shut out of, where a ceiling of 64 s fires at least 7 times; the generic's timeout,
#: on which the paper builds JK, has none either (`-jk-64s-ceiling` keeps it side by side). Its
#: timers stay the generic's exact ones (no 500 ms tick), which the paper's own Telnet numbers
#: settle for the generic.
JK_KEYS = {
    "after_fast_retransmit": "resume",
    "rtt_timing": "one_at_a_time",
    "rto_k": "2",
    "min_rto": "1s",
    "max_rto": "unbounded",
    "clear_srtt_after_backoffs": "4",
    "timeout_ssthresh": "half_window",
    "fast_retransmit_ssthresh": "half_window",
    "slow_start_at_ssthresh": "true",
}
#: 4.3BSD-Tahoe's ceiling on the timeout, which aqmlab's JK had until the seventeenth session
#: (side by side: the `-jk-64s-ceiling` variants).
JK_CEILING_KEYS = {"max_rto": "64s"}
JK_CEILING_NOTES = """**JK's timeout with 4.3BSD-Tahoe's ceiling of 64 s** (`max_rto = "64s"` on every JK flow), as
aqmlab's JK had it until the seventeenth session. The reproduction proper keeps that code's
back-off (the timeout doubled on each expiry, up to 64 times) without the ceiling, a choice the
paper's own numbers settle: in its scenario 3 the JK/FCFS FTP delivers nothing in the 500 s
window, so its timer runs throughout, and it resends 2 packets, where a timer that never waits
more than 64 s fires at least 7 times; and the paper builds its JK on the
generic flow control, whose timeout ("beta rtt") has no ceiling. This experiment shows what the
ceiling did, side by side. The rows are those of the reproduction proper.

"""
#: RFC 6298's timer and RFC 5681's arithmetic (half the flight after a loss, linear opening from
#: the threshold on), which aqmlab's JK had before it took 4.3BSD-Tahoe's (side by side: the
#: `-jk-rfc6298-timers` variants).
JK_RFC6298_KEYS = {
    "rtt_timing": "every_ack",
    "rto_k": "4",
    "min_rto": "200ms",
    "max_rto": "64s",
    "clear_srtt_after_backoffs": "0",
    "timeout_ssthresh": "half_flight",
    "fast_retransmit_ssthresh": "half_flight",
    "slow_start_at_ssthresh": "false",
}
JK_RFC6298_NOTES = """**JK on RFC 6298's timer and RFC 5681's arithmetic** (on every JK flow: a sample from every
ACK, a timeout of srtt + 4 rttvar bounded below by 200 ms, half the flight as the threshold after a
loss, linear opening from the threshold on). aqmlab's JK had these until the thirteenth session.
The paper models JK on "the 4.3bsd TCP implementation", naming "adjustable windows" and "better
timeout calculations" among the ideas taken from that code, and in 1988-89 that code is
4.3BSD-Tahoe's: one segment timed at a time, srtt + 2 rttvar, at least 1 s, the estimate
started afresh from the fourth back-off in a row, half the window as the threshold after a
timeout or a fast retransmit, and slow start up to and at the threshold. The reproduction proper
has those (chosen from the text before it was run; without that code's 64 s ceiling, which
scenario 3's numbers rule out, since the seventeenth session); this experiment shows what they replaced,
side by side. The rows are those of the reproduction proper.

"""
QUEUES = {
    "FCFS": '{discipline = "droptail", limit = %d}',
    "FQ": '{discipline = "fq", limit = %d}',
    "DEC": '{discipline = "decbit", limit = %d, selective = true}',
    "FQbit": '{discipline = "fq_bit", limit = %d, alpha = 0.5, share = "known"}',
}

REDUCED = {"simulation.duration": "400s", "simulation.warmup": "200s"}

COMMON_NOTES = """Every scenario follows the paper's section 4: Telnets send 40-byte packets, Poisson with a
mean gap of 5 s; FTPs have endless 1000-byte packets; both have a window of 5; ACKs are 40 bytes;
FQ has delta = 0 and counts conversations by source-destination pair; 1500 s of warm-up, then
500 s measured. Left open by the paper, and our choices:
gateway lines of 56 kbps (3500 packets in 500 s), buffers of 15 packets (stated for scenario 2;
20 in scenarios 3 and 5, which their own numbers settle), 10 Mbps host links, no propagation
delay, starts spread over the first second. The policy pairs (Table 1):
**G** is the paper's generic flow control (fixed window, timeout 2 x smoothed RTT, no
back-off, no bound either way: the paper's timeout is "beta rtt"); **JK** is aqmlab's Tahoe
(slow start, congestion avoidance, 4.3BSD-Tahoe's timeout calculation: one segment timed at a time, srtt + 2 rttvar, at least 1 s, with Karn's rule and
back-off up to 64 times, but not its 64 s ceiling, which scenario 3's JK/FCFS FTP, resending 2
packets in a window it is shut out of, rules out; its window arithmetic: half the window after a loss, slow start at the threshold itself;
fast retransmit of the lost packet alone, no fast recovery) capped at 5; **DEC** is the DECbit
source (window +1 or x0.875 per two windows of ACKs, kept as a real number and used rounded to
the nearest packet, as Ramakrishnan and Jain's TOCS 1990 paper states); **FCFS** is drop-tail;
**FQ** is Fair Queueing with push-out from the longest conversation; **DEC** as a gateway is
selective DECbit (DEC TR-510, Ramakrishnan, Chiu and Jain 1987, approximated: its exact rules
could not be found, in the report, in RFC 1254's section on it as far as it can be read here, or in
any public text that cites it; DKS say only that the gateway measures the conversations' flows
and signals those "using more than their fair share"; aqmlab sets the bit only for conversations
at or above their max-min share of 90% of the line, while the cycle-averaged queue is at least 1,
and every DEC/DEC row of every scenario rests on that approximation: docs/reproductions.md, *The
selective DECbit gateway*, lists the rows whose verdict turns on it); **FQbit** is FQ that sets the bit when a
conversation's queue exceeds alpha = 1/2 of its share of the buffer (alpha is garbled in the
paper), the buffer shared among every conversation the gateway carries (the paper does not say
among which; its scenario 2 settles it: an RTT of 0.860 s at 582 packets is one packet
outstanding per FTP, so a lone packet carries the bit, 1 > 1/2 x 15/8, which a share among the
FQ-active conversations gives only while all eight are active: with the six FTPs, 1/2 x 15/6 >
1; docs/reproductions.md). The Telnets use the same flow control as the FTPs. Only the gateway lines change queue;
host links stay FCFS (nothing waits at 10 Mbps).

Quantities per source are the paper's four: throughput (packets delivered in the 500 s window,
duplicates included, as "packets reaching destination"), mean round-trip time, retransmissions
(one per timeout or fast retransmit, not the packets a timeout's going back resends: the paper's
scenario 2 JK/FCFS FTPs drop 80 packets yet retransmit 57, `with_paper_retx`) and dropped data
packets. The round-trip time of a source with the generic flow control is the
mean over its packets of the time from first sending to the acknowledgement covering it
(`mean_packet_rtt_s`): the paper's "average round trip time of the packets", as its own numbers
show (a window of 5 always outstanding makes it 5 over the rate of new packets, Little's law,
which its scenario 2 G/FQ FTPs 3-6 and G/FCFS winners satisfy; a mean of the sender's samples
leaves out the packets acknowledged together behind a lost one, and falls well below it). JK and
DECbit sources keep the mean of the sender's samples (`mean_rtt_s`): their windows vary, so the
paper's numbers give no such check. **Pairing.** Sources that the set-up makes interchangeable (the FTPs
of one kind, the Telnets) are compared by rank of throughput: the paper's k-th largest throughput
against the mean over seeds of our k-th largest in each run (`throughput:ftp#1` is the largest;
unreadable cells count as the smallest), the only meaningful pairing when which source wins is
chance (segregation). A source's other numbers follow its throughput rank, so that it keeps its
identity across the rows: the paper's RTT of its k-th largest source against the RTT of our k-th
largest (`rtt:ftp@thr#k`); a source whose throughput is unreadable is compared with ours of the
same column. No source is ever compared with a group's mean. Sources that are not interchangeable
(scenarios 3 and 5) are compared one by one. **Chance.** The paper's numbers are single runs; a
count of n packets varies by about 2 sqrt(n) by chance alone (a Telnet's ~100 packets are a
Poisson count), which a row of a count is allowed as its own spread (`consistent`); a match needs
10% or the printed precision, and a printed 0 only what rounds to 0."""


def queue_for(policy: str, limit: int) -> str:
    return QUEUES[policy.split("/")[1]] % limit


# ---------------------------------------------------------------------------------------------
# Measuring


#: The column of the paper's "average round trip time of the packets" (see `with_paper_rtt`).
PAPER_RTT = "paper_rtt_s"


def with_paper_rtt(flows: pd.DataFrame, generic: Callable[[str, str], bool]) -> pd.DataFrame:
    """``flows`` with the column `PAPER_RTT`: for a source with the generic flow control
    (``generic(condition, name)``), the mean over its packets of the time from first sending to
    the acknowledgement covering it (``mean_packet_rtt_s``), for any other the mean of its
    sender's samples (``mean_rtt_s``). The paper's own numbers settle the first: a fixed window
    of 5 always outstanding makes that mean 5 over the rate of new packets (Little's law), which
    its scenario 2 G/FQ FTPs 3-6 and G/FCFS winners satisfy and a mean of per-ACK samples, which
    leaves out the packets delivered behind a lost one, cannot (docs/reproductions.md, *DKS's
    generic flow control*). JK and DECbit windows vary, so the paper's numbers give no such check
    for them."""
    out = flows.copy()
    mask = np.array([bool(generic(c, n)) for c, n in zip(out["condition"], out["name"])], dtype=bool)
    per_packet = out["mean_packet_rtt_s"] if "mean_packet_rtt_s" in out else pd.Series(NAN, index=out.index)
    out[PAPER_RTT] = np.where(mask, per_packet.astype(float), out["mean_rtt_s"].astype(float))
    return out


#: The column of the paper's "number of packet retransmissions" (see `with_paper_retx`).
PAPER_RETX = "paper_retx"


def with_paper_retx(flows: pd.DataFrame) -> pd.DataFrame:
    """``flows`` with the column `PAPER_RETX`: each source's retransmission episodes, a timeout
    or a fast retransmit counted once (``timeouts + fast_retransmits``), not the packets resent.
    The paper's own numbers settle it: under scenario 2's JK/FCFS its FTPs 5 and 6 lose 80
    packets each yet retransmit 57. Counted in packets that cannot be, since every dropped copy
    of undelivered data is sent again and a dropped needless copy was itself a resend, so resends
    reach the drops less at most a window left at the end (5). Elsewhere its counts agree with
    episodes (scenario 2's JK/FQ resends at least as many as it loses, scenario 4's JK pair
    47 and 48). The generic flow control and DECbit's timeouts resend only the packet timed out,
    so for them the two counts are the same; JK's timeout goes back over every packet still
    outstanding, one episode."""
    out = flows.copy()
    out[PAPER_RETX] = out["timeouts"].astype(float) + out["fast_retransmits"].astype(float)
    return out


def _window(run: pd.DataFrame) -> float:
    """The measurement window of one run (s), from a flow's bytes and throughput."""
    ok = run[(run["throughput_bps"] > 0) & (run["delivered_bytes"] > 0)]
    if not len(ok):
        return WINDOW_S
    return float(np.median(ok["delivered_bytes"] * 8.0 / ok["throughput_bps"]))


METRICS = {
    "throughput": ("delivered_pkts", True),  # per 500 s
    "rtt": (PAPER_RTT, False),
    "retx": (PAPER_RETX, True),
    "drops": ("dropped_pkts", True),
}


def per_run_flow_rows(flows: pd.DataFrame, groups: Mapping[str, Sequence[str]]) -> list[tuple]:
    """Per source ``metric:name``; per group ranks ``metric:group#k`` (largest first) and means."""
    rows = []
    for (cond, seed), run in flows.groupby(["condition", "seed"], sort=False):
        scale = WINDOW_S / _window(run)
        values: dict[str, dict[str, float]] = {}
        for metric, (column, count) in METRICS.items():
            col = run.set_index("name")[column].astype(float)
            if count:
                col = col * scale
            values[metric] = col.to_dict()
            for name, v in col.items():
                rows.append((cond, seed, f"{metric}:{name}", v))
        for group, names in groups.items():
            for metric in METRICS:
                vs = [values[metric].get(n, NAN) for n in names]
                present = sorted((v for v in vs if not math.isnan(v)), reverse=True)
                for k, v in enumerate(present, start=1):
                    rows.append((cond, seed, f"{metric}:{group}#{k}", v))
                if present:
                    rows.append((cond, seed, f"{metric}:{group} mean", float(np.mean(present))))
            # The group's sources by throughput, largest first (ties in column order): each
            # metric of the source that ranks k-th, so that a source keeps its identity.
            order = sorted(names, key=lambda n: -values["throughput"].get(n, -math.inf))
            for k, name in enumerate(order, start=1):
                for metric in METRICS:
                    rows.append((cond, seed, f"{metric}:{group}@thr#{k}", values[metric].get(name, NAN)))
            thr = [values["throughput"].get(n, 0.0) for n in names]
            rows.append((cond, seed, f"total_throughput:{group}", float(np.sum(thr))))
            fairness = jain(thr)
            if fairness is not None:
                rows.append((cond, seed, f"jain:{group}", fairness))
    return rows


def frame(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["condition", "seed", "quantity", "value"])


# ---------------------------------------------------------------------------------------------
# Published values -> references


@dataclass(frozen=True)
class Published:
    """One policy's published values of one metric for a group of sources (from the file)."""

    metric: str
    policy: str
    #: The group's name ("" or the source's name for sources compared one by one).
    group: str
    #: The readable numbers, by our source name, in the table's column order.
    numbers: Mapping[str, Number]
    #: How a number finds its simulated counterpart:
    #: ``rank``: the k-th largest published value against the mean over seeds of our k-th
    #: largest (for throughput: which interchangeable source wins is chance; unreadable cells
    #: count as the smallest);
    #: ``throughput_rank``: the source's value against the same metric of our source whose
    #: throughput ranks as the published source's does (a source keeps its identity across the
    #: rows; a source whose throughput is unreadable is compared with ours of the same column);
    #: ``per_flow``: the source against ours of the same name.
    pairing: str


def group_published(scenario: str, metric: str, policy: str, groups: Mapping[str, Sequence[str]]) -> list[Published]:
    """A policy's numbers of one metric from the file, split into the scenario's groups."""
    found = series(PAPER_DIR, f"{scenario}.{metric}.{policy}")
    out = []
    for group, names in groups.items():
        mine = {n: found[n] for n in names if n in found}
        if mine:
            pairing = "rank" if metric == "throughput" else "throughput_rank"
            out.append(Published(metric, policy, group, mine, pairing))
    return out


def _spread(metric: str, value: float) -> tuple[str, float] | None:
    """The chance spread of a count: the paper's numbers are single runs, and a count of n
    packets (throughput, retransmissions, drops) spreads by about 2 sqrt(n) by chance alone (a
    Telnet's ~100 packets are a Poisson count); a count printed as 0 may come from a mean of a
    few, hence sqrt(max(n, 1)). Other metrics have none of their own."""
    if metric in ("throughput", "retx", "drops"):
        return ("count 2 sqrt(n)", 2.0 * math.sqrt(max(value, 1.0)))
    return None


def throughput_ranks(published: Sequence[Published]) -> dict[tuple[str, str], dict[str, int]]:
    """{(policy, group): {source: rank}} of the readable published throughputs (1 = largest;
    ties in column order)."""
    out = {}
    for pub in published:
        if pub.metric == "throughput" and pub.group:
            order = sorted(pub.numbers, key=lambda n: -pub.numbers[n].value)
            out[(pub.policy, pub.group)] = {n: k for k, n in enumerate(order, start=1)}
    return out


def paired_quantity(pub: Published, name: str, ranks: Mapping[tuple[str, str], Mapping[str, int]]) -> str:
    """The simulated quantity a published number of ``name`` is compared with."""
    if pub.pairing == "rank":
        order = sorted(pub.numbers, key=lambda n: -pub.numbers[n].value)
        return f"{pub.metric}:{pub.group}#{order.index(name) + 1}"
    if pub.pairing == "throughput_rank":
        rank = ranks.get((pub.policy, pub.group), {}).get(name)
        if rank is not None:
            return f"{pub.metric}:{pub.group}@thr#{rank}"
    return f"{pub.metric}:{name}"


def references_from(
    published: Sequence[Published],
    trends: Mapping[str, tuple[str, Callable[[pd.DataFrame], bool]]],
    explain: Callable[[Published], str],
) -> list[Reference]:
    """One row per published number. ``trends[policy]`` is the paper's finding for that
    policy's rows; ``explain`` gives the reason a row may differ."""
    ranks = throughput_ranks(published)
    refs = []
    for pub in published:
        for name, n in pub.numbers.items():
            refs.append(
                cite(
                    n,
                    paired_quantity(pub, name, ranks),
                    pub.policy,
                    spread=_spread(pub.metric, n.value),
                    trend=trends.get(pub.policy),
                    explanation=explain(pub),
                )
            )
    return refs


# ---------------------------------------------------------------------------------------------
# The six scenarios


class DksScenario(Experiment):
    paper = PAPER
    number = 0
    #: Gateway-to-gateway lines whose queue each policy sets.
    lines: Sequence[str] = ("gateway",)
    #: Flow keys (names or templates) whose cc each policy sets.
    cc_flows: Sequence[str] = ("ftp{i}", "telnet{i}")
    buffer = 15
    policies: Sequence[str] = POLICIES
    #: Groups of interchangeable sources (ranked together).
    groups: Mapping[str, Sequence[str]] = {}
    #: Sources in the paper's column order (for figures).
    columns: Sequence[str] = ()
    #: Groups drawn ranked in the figure (None: the ranked groups).
    figure_groups: Mapping[str, Sequence[str]] | None = None
    reduced = REDUCED
    #: Keys set on every JK flow besides its cc (a side-by-side variant's JK model).
    jk_keys: Mapping[str, str] = {}
    #: Overrides added to every condition, after the policy's (a side-by-side variant's condition).
    condition_keys: Mapping[str, str] = {}
    #: Overrides added, after those, to the conditions of the policies named (a variant that
    #: changes some policies only).
    policy_keys: Mapping[str, Mapping[str, str]] = {}

    @property
    def jk_flow_keys(self) -> dict[str, str]:
        """The keys every JK flow of this experiment gets: JK_KEYS, then the variant's own."""
        return {**JK_KEYS, **self.jk_keys}

    @property
    def scenario(self) -> str:  # type: ignore[override]
        return f"dks-1989/scenario{self.number}.toml"

    def conditions(self):
        out = []
        for policy in self.policies:
            overrides = {f"link.{line}.queue": queue_for(policy, self.buffer) for line in self.lines}
            if self.cc_flows:
                cc = policy.split("/")[0]
                overrides.update({f"flow.{f}.cc": CC[cc] for f in self.cc_flows})
                if cc == "JK":
                    keys = self.jk_flow_keys
                    overrides.update({f"flow.{f}.{k}": v for f in self.cc_flows for k, v in keys.items()})
            overrides.update(self.condition_keys)
            overrides.update(self.policy_keys.get(policy, {}))
            out.append(Condition(policy, overrides))
        return out

    def generic(self, condition: str, name: str) -> bool:
        """Whether source ``name`` has the generic flow control under ``condition``: under a G
        policy, the flows whose cc the policy sets."""
        if condition.split("/")[0] != "G":
            return False
        return any(re.fullmatch(re.escape(t).replace(r"\{i\}", r"\d+"), name) for t in self.cc_flows)

    def paper_flows(self, tables) -> pd.DataFrame:
        """The flows table with the paper's RTT and retransmissions of each source
        (`with_paper_rtt`, `with_paper_retx`)."""
        return with_paper_retx(with_paper_rtt(tables["flows"], self.generic))

    def measure(self, tables):
        rows = per_run_flow_rows(self.paper_flows(tables), self.groups)
        rows += self.extra(tables)
        return frame(rows)

    def extra(self, tables) -> list[tuple]:
        return []

    def published(self) -> list[Published]:
        return []

    def trends(self) -> dict[str, tuple[str, Callable[[pd.DataFrame], bool]]]:
        return {}

    def explain(self, pub: Published) -> str:
        return ""

    def claims(self) -> list[Reference]:
        return []

    def references(self):
        refs = references_from(self.published(), self.trends(), self.explain) + self.claims()
        # A variant that runs some of the policies compares only their rows.
        return [r for r in refs if r.condition in self.policies]

    def figures(self, measured, summary, outdir):
        return policy_figure(self, summary, outdir / f"scenario{self.number}")


def policy_figure(exp: DksScenario, summary: pd.DataFrame, stem: Path) -> list[Path]:
    """Throughput and RTT per source and policy: aqmlab's mean over seeds (bars, 95% intervals)
    and the paper's value of the same row (black marks). In a group of interchangeable sources,
    bar k is the k-th largest throughput and, below, the RTT of that same source."""
    import matplotlib.pyplot as plt

    from aqmlab.reproduce.plots import half_width

    groups = exp.groups if exp.figure_groups is None else exp.figure_groups
    paper = {(r.quantity, r.condition): r.value for r in exp.references() if not math.isnan(r.value)}
    slots: list[tuple[str, str]] = []  # (label, suffix of the quantity) in column order
    seen = set()
    for name in exp.columns:
        group = next((g for g, names in groups.items() if name in names), None)
        if group is None:
            slots.append((name, name))
        elif group not in seen:
            seen.add(group)
            slots += [(f"{group}#{k}", f"{group}#{k}") for k in range(1, len(groups[group]) + 1)]
    fig, axes = plt.subplots(2, 1, figsize=(max(7, 1.2 * len(exp.policies) * len(slots) / 3), 6.5), sharex=True)
    width = 0.8 / len(slots)
    marked = False
    for ax, metric, ylabel in ((axes[0], "throughput", "packets in 500 s"), (axes[1], "rtt", "mean RTT (s)")):
        for j, (label, suffix) in enumerate(slots):
            q = f"{metric}:{suffix}"
            if metric != "throughput" and "#" in suffix:
                q = f"{metric}:{suffix.replace('#', '@thr#')}"
            means = [value_of(summary, q, c) for c in exp.policies]
            err = [half_width(summary, q, c) for c in exp.policies]
            xs = [i + (j - (len(slots) - 1) / 2) * width for i in range(len(exp.policies))]
            ax.bar(xs, means, width * 0.95, yerr=err, capsize=1.5, label=label, color=f"C{j % 10}")
            for i, policy in enumerate(exp.policies):
                value = paper.get((q, policy))
                if value is not None:
                    y = max(value, 1e-3) if metric == "rtt" else value
                    ax.plot([xs[i]], [y], "k_", ms=9, mew=2, label=None if marked else "paper")
                    marked = True
        ax.set_ylabel(ylabel)
        if metric == "rtt":
            ax.set_yscale("log")
    axes[1].set_xticks(range(len(exp.policies)), exp.policies)
    axes[0].legend(fontsize=7, ncol=min(len(slots) + 1, 8))
    marks = "paper (black marks)" if paper else "no paper values (table unreadable)"
    ranked = "\nNAME#k: the k-th largest throughput of its group; below, that source's RTT" if groups else ""
    axes[0].set_title(f"DKS 1989 scenario {exp.number}: aqmlab mean over seeds (bars), {marks}{ranked}", fontsize=10)
    return save(fig, stem)


def _v(s, q, c):
    return value_of(s, q, c)
