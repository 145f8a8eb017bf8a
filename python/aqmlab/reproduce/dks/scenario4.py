"""DKS 1989 scenario 4: mixed protocols, 2 generic and 2 JK FTPs through one gateway, FCFS and FQ;
side by side with JK on RFC 6298's timer and RFC 5681's arithmetic (-jk-rfc6298-timers)."""

from __future__ import annotations

import dataclasses

from aqmlab.reproduce.base import Condition, Reference
from aqmlab.reproduce.dks.common import (
    COMMON_NOTES,
    JK_RFC6298_KEYS,
    JK_RFC6298_NOTES,
    NAN,
    PAPER_DIR,
    QUEUES,
    DksScenario,
    _v,
    group_published,
    num,
)
from aqmlab.reproduce.dks.scenario2 import METRIC_NAMES
from aqmlab.reproduce.published import cite, series

S4_SEPARATE = "FQ, every FTP on its own host"


class Scenario4(DksScenario):
    id = "dks-1989-scenario4"
    number = 4
    title = "mixed protocols: 2 generic and 2 JK FTPs through one gateway, FCFS and FQ"
    source = "Scenario 4 (table and text)"
    cc_flows = ()
    policies = ("FCFS", "FQ", S4_SEPARATE)
    groups = {"generic": ["generic1", "generic2"], "jk": ["jk3", "jk4"]}
    columns = ["generic1", "generic2", "jk3", "jk4"]
    notes = (
        COMMON_NOTES
        + """

Scenario 4 keeps each source's own flow control (FTPs 1-2 generic, 3-4 JK) and changes only the
gateway: FCFS or FQ. Each pair is ranked by throughput (under FQ the paper's generic pair
segregates: which one wins is chance), and a source's other rows follow its throughput rank.

**The layout is settled by the paper's FQ column** (its figure is not legible). The paper's FQ
throughputs (1162, 12, 1163, 1163) give each JK source a third of the line and the two generic
sources a third *between them*, one of them starved. With four separate conversations FQ cannot
do that: push-out drops from the longest conversation, so a starved source's lone packet is always
admitted and served within a round, and each of four conversations gets about 875. It is what FQ
does when the two generic FTPs are one conversation (one source host, one sink): the pair is held
to one share, and inside it the arrival of the source that lost its place is the one pushed out.
So both generic FTPs run on host s1 (the scenario file); the condition `FQ, every FTP on its own
host` shows the other layout, with only the paper's qualitative finding checked on it. (Earlier
versions compared the numbers with that other layout.)"""
    )

    def generic(self, condition: str, name: str) -> bool:
        return name in self.groups["generic"]

    def conditions(self):
        fq = QUEUES["FQ"] % self.buffer
        jk = {f"flow.jk{{i}}.{k}": v for k, v in self.jk_flow_keys.items()}
        return [
            Condition("FCFS", {"link.gateway.queue": QUEUES["FCFS"] % self.buffer, **jk}),
            Condition("FQ", {"link.gateway.queue": fq, **jk}),
            Condition(S4_SEPARATE, {"link.gateway.queue": fq, "flow.generic{i}.src": "s{i}", **jk}),
        ]

    def published(self):
        out = []
        for metric in METRIC_NAMES:
            for policy in ("FCFS", "FQ"):
                if series(PAPER_DIR, f"s4.{metric}.{policy}"):
                    out += group_published("s4", metric, policy, self.groups)
        return out

    def trends(self):
        def pair(s, p, g):
            return _v(s, f"total_throughput:{g}", p)

        def reversed_(p):
            return lambda s: (
                pair(s, p, "jk") > pair(s, p, "generic")
                and _v(s, "throughput:generic#1", p) > 10 * _v(s, "throughput:generic#2", p)
            )

        return {
            "FCFS": (
                "FCFS: the generic pair gets more than the JK pair",
                lambda s: pair(s, "FCFS", "generic") > pair(s, "FCFS", "jk"),
            ),
            "FQ": (
                "FQ: reversed, the JK pair gets more than the generic pair, and the generic sources segregate (largest > 10x smallest)",
                reversed_("FQ"),
            ),
            S4_SEPARATE: (
                f"{S4_SEPARATE}: the paper's FQ finding (JK pair ahead, generic sources segregated)",
                reversed_(S4_SEPARATE),
            ),
        }

    def explain(self, pub):
        return S4_WHY.get((pub.policy, pub.metric), S4_WHY.get((pub.policy, "*"), ""))

    def references(self):
        # Under FQ the two generic FTPs share one conversation's queue, where the phase of their
        # timeouts decides which of them keeps its place: the seeds fall into regimes (one
        # generic source takes the pair's third, or neither keeps a place and the JK pair takes
        # the line). Under FCFS the JK pair either loses in lockstep or three sources at the window
        # cap lock the fourth out. So every row compares the paper's run with the median run.
        return [dataclasses.replace(r, statistic="median") for r in super().references()]

    def claims(self):
        t = self.trends()
        return [
            cite(
                num("s4.sum.jk_FQ"),
                "total_throughput:jk",
                "FQ",
                trend=t["FQ"],
                explanation=S4_WHY.get(("FQ", "*"), ""),
            ),
            cite(num("s4.sum.generic_FCFS"), "total_throughput:generic", "FCFS", trend=t["FCFS"]),
            Reference(
                "throughput:generic#2",
                S4_SEPARATE,
                NAN,
                "Scenario 4 text, with the other layout: every FTP a conversation of its own (see the set-up)",
                "text",
                trend=t[S4_SEPARATE],
                explanation=(
                    "with four conversations FQ gives each about a quarter of the line and starves no generic "
                    "source: the paper's FQ finding needs the generic pair to be one conversation (the layout used)"
                ),
            ),
        ]


S4_WHY: dict[tuple[str, str], str] = {
    ("FQ", "*"): (
        "the generic pair is one conversation (the layout the paper's FQ column settles): FQ holds it to a third of "
        "the line and, inside it, pushes out the arrivals of the source that lost its place"
    ),
    ("FCFS", "*"): (
        "the generic pair never loses a packet under FCFS while the JK pair, probing up to the buffer, does: the split "
        "depends on how often JK loses. In three seeds of five aqmlab's two JK sources lose one packet each every "
        "10.6 s, in lockstep and by fast retransmit, never a timeout (seed 1: 47 retransmissions, 0 timeouts each): "
        "47 losses in 500 s and 565-570 packets each, the paper's 47-48 and 567-569, with 4.3BSD-Tahoe's window "
        "arithmetic, which the paper's JK takes from that code (slow start goes on at the threshold; a fast "
        "retransmit leaves half the window, not half the flight). With RFC 5681's arithmetic and RFC 6298's timer "
        "(aqmlab's JK before the thirteenth session; dks-1989-scenario4-jk-rfc6298-timers) the cycle was one round "
        "trip longer, 12.3 s: 41 losses and 529 packets in all five seeds. In the other two seeds three sources hold "
        "the window cap and fill the buffer of 15 between them, and ACK-clocked they never lose, while the fourth's "
        "tries at random find it full: one JK source is locked out in seed 4 (24 packets), one generic source in "
        "seed 5 (31 packets), the lock-in of scenario 2's JK/FCFS. The rows compare the median run"
    ),
    ("FQ", "rtt"): (
        "the starved generic source's RTT is minutes (the paper's 281 s, printed without a decimal point: a fixed "
        "window of 5 always outstanding makes a generic source's mean RTT 2500 packet-seconds over its new packets, "
        "at least 208 s for 12 delivered, docs/reproductions.md, *DKS's generic flow control*); how many minutes "
        "turns on how few packets it gets through in the 500 s: in two of aqmlab's runs it gets none acknowledged "
        "(no RTT), in the other three 484, 708 and 1766 s"
    ),
    ("FQ", "drops"): (
        "in the median run the JK sources lose nothing under FQ (the paper: 2 each, within the chance spread of a "
        "count of 2)"
    ),
}


class Scenario4JkRfc6298Timers(Scenario4):
    id = "dks-1989-scenario4-jk-rfc6298-timers"
    variant_of = "dks-1989-scenario4"
    title = Scenario4.title + ", JK on RFC 6298's timer and RFC 5681's arithmetic"
    jk_keys = JK_RFC6298_KEYS
    notes = JK_RFC6298_NOTES + Scenario4.notes
