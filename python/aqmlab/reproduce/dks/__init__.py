"""Demers, Keshav and Shenker, "Analysis and Simulation of a Fair Queueing Algorithm", SIGCOMM
1989: the six benchmark scenarios of section 4 under the six policy pairs of its Table 1, and
the Telnet delay-throughput curves of Fig. 1 (section 2.3), a module each beside what they
share (``common``).

The paper's tables survive only as a poor scan. Their numbers, with how each was read and how
certain the reading is, are in ``scenarios/papers/dks-1989/published.toml``; every row here
compares one of them (or one of the text's claims).
"""

from aqmlab.reproduce.dks.fig1 import Fig1
from aqmlab.reproduce.dks.scenario1 import Scenario1
from aqmlab.reproduce.dks.scenario2 import (
    Scenario2,
    Scenario2FqbitActive,
    Scenario2Jitter,
    Scenario2Jk64sCeiling,
    Scenario2JkFirstDuplicate,
    Scenario2JkFirstDuplicateNoBacklog,
    Scenario2JkFirstDuplicateNoBacklogUncapped,
    Scenario2JkFirstDuplicateUncapped,
    Scenario2JkRfc6298Timers,
    Scenario2JkTimers,
    Scenario2JkUncapped,
    Scenario2PerPacketSamples,
)
from aqmlab.reproduce.dks.scenario3 import Scenario3, Scenario3Jk64sCeiling
from aqmlab.reproduce.dks.scenario4 import Scenario4, Scenario4JkRfc6298Timers
from aqmlab.reproduce.dks.scenario5 import Scenario5, Scenario5JkTimers, Scenario5TruncatedWindow
from aqmlab.reproduce.dks.scenario6 import Scenario6

EXPERIMENTS = [
    Scenario1(),
    Scenario2(),
    Scenario2Jitter(),
    Scenario2JkTimers(),
    Scenario2JkRfc6298Timers(),
    Scenario2JkFirstDuplicate(),
    Scenario2JkUncapped(),
    Scenario2JkFirstDuplicateUncapped(),
    Scenario2JkFirstDuplicateNoBacklog(),
    Scenario2JkFirstDuplicateNoBacklogUncapped(),
    Scenario2Jk64sCeiling(),
    Scenario2PerPacketSamples(),
    Scenario2FqbitActive(),
    Scenario3(),
    Scenario3Jk64sCeiling(),
    Scenario4(),
    Scenario4JkRfc6298Timers(),
    Scenario5(),
    Scenario5JkTimers(),
    Scenario5TruncatedWindow(),
    Scenario6(),
    Fig1(),
]
