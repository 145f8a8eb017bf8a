"""Mankin, "Random Drop Congestion Control", SIGCOMM 1990: the three testbed experiments
(single, two and three bottlenecks), each with Random Drop Congestion Recovery on and off, beside
every number of Tables 1-5.

The paper measured a real testbed (MicroVAX gateways, 19.2 kbit/s SLIP links), one run per
experiment and setting; the scenario files in ``scenarios/papers/mankin-1990/`` emulate it and
state every choice. Tolerances are the paper's own sampling error where its numbers are counts:
its drop percentages rest on a few dozen LR packets (Exp. II, LR, off: 22.73% = 5 of 22).
A module each for what the experiments share, their explanations, the experiments and the
findings across them.
"""

from aqmlab.reproduce.mankin.across import Across
from aqmlab.reproduce.mankin.experiments import (
    Exp1,
    Exp1Exact,
    Exp1Jitter,
    Exp1OneClock,
    Exp1Rfc6298Timers,
    Exp2,
    Exp2Exact,
    Exp2Jitter,
    Exp2OneClock,
    Exp2Rfc6298Timers,
    Exp3,
    Exp3Exact,
    Exp3Jitter,
    Exp3OneClock,
    Exp3Rfc6298Timers,
)

EXPERIMENTS = [
    Exp1(),
    Exp2(),
    Exp3(),
    Exp1Exact(),
    Exp2Exact(),
    Exp3Exact(),
    Exp1Jitter(),
    Exp2Jitter(),
    Exp3Jitter(),
    Exp1OneClock(),
    Exp2OneClock(),
    Exp3OneClock(),
    Exp1Rfc6298Timers(),
    Exp2Rfc6298Timers(),
    Exp3Rfc6298Timers(),
    Across(),
]
