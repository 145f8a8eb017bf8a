"""DKS 1989 scenario 1: an underloaded gateway, 2 FTPs and 2 Telnets, under the six policy pairs."""

from __future__ import annotations

from aqmlab.reproduce.base import Reference
from aqmlab.reproduce.dks.common import COMMON_NOTES, NAN, POLICIES, DksScenario, _v, num
from aqmlab.reproduce.published import cite


class Scenario1(DksScenario):
    id = "dks-1989-scenario1"
    number = 1
    title = "underloaded gateway: 2 FTP and 2 Telnet sources, six policy pairs"
    source = "Scenario 1 (text; the table is unreadable)"
    groups = {"ftp": ["ftp1", "ftp2"], "telnet": ["telnet3", "telnet4"]}
    columns = ["ftp1", "ftp2", "telnet3", "telnet4"]
    notes = (
        COMMON_NOTES
        + """

Scenario 1's table is lost; only the text is compared: every policy shares the line fairly
between the two FTPs (Jain's index of their throughputs, 1 = equal), the FQ cases (G/FQ, JK/FQ,
DEC/FQbit) give the Telnets a much lower delay than the FCFS cases (G/FCFS, JK/FCFS; we ask for
under a quarter), and selective DECbit's Telnet delay lies in between. The Telnet delay is the
mean RTT of the two Telnets."""
    )

    def claims(self):
        fair = (
            "all policies share the line fairly between the FTPs",
            lambda s: all(_v(s, "jain:ftp", p) > 0.98 for p in POLICIES),
        )
        why_fair = "see the figure: one policy's FTPs do not split the line evenly"
        refs = [
            cite(num("s1.jain_ftp"), "jain:ftp", p, tolerance=0.02, trend=fair, explanation=why_fair) for p in POLICIES
        ]

        def low(fq):
            return lambda s: (
                _v(s, "rtt:telnet mean", fq) < 0.25 * min(_v(s, "rtt:telnet mean", p) for p in ("G/FCFS", "JK/FCFS"))
            )

        for fq in ("G/FQ", "JK/FQ", "DEC/FQbit"):
            refs.append(
                Reference(
                    "rtt:telnet mean",
                    fq,
                    NAN,
                    "Scenario 1 text: 'the cases with FQ provide much lower Telnet delay than those with FCFS'",
                    "text",
                    trend=(f"Telnet RTT under {fq} is under a quarter of the FCFS cases' (G/FCFS, JK/FCFS)", low(fq)),
                    explanation="FQ does not cut the Telnet delay by a factor 4 here",
                )
            )
        mid = (
            "selective DECbit's Telnet delay lies between FQ's and FCFS's",
            lambda s: (
                max(_v(s, "rtt:telnet mean", p) for p in ("G/FQ", "JK/FQ", "DEC/FQbit"))
                < _v(s, "rtt:telnet mean", "DEC/DEC")
                < min(_v(s, "rtt:telnet mean", p) for p in ("G/FCFS", "JK/FCFS"))
            ),
        )
        refs.append(
            Reference(
                "rtt:telnet mean",
                "DEC/DEC",
                NAN,
                "Scenario 1 text: 'selective DECbit gives an intermediate value'",
                "text",
                trend=mid,
                explanation="DEC/DEC's Telnet delay is not between FQ's and FCFS's",
            )
        )
        return refs

    def published(self):
        return []
