"""Kurata, Hasegawa and Murata, "More results on ZL-RED for fairness enhancement between TCP Reno
and Vegas" (IEICE technical report, c. 2000, in Japanese): SRED's estimate of the number of
flows (Fig. 2) and the throughput and loss of TCP Reno against TCP Vegas under SRED and ZL-RED
(Fig. 4: buffer size; Fig. 5: zombie list size; Fig. 6: the constant a of eq. (8)).

The paper prints no numbers: every row checks one of its qualitative claims
(Sec. 2.2 and 4.2) on the simulated means, by the rule stated in the row.
Scenarios: ``scenarios/papers/zlred/``; the number of connections, the discipline and its
parameters are conditions set by overrides. A module per figure, beside what they share
(``common``).
"""

from aqmlab.reproduce.zlred.fig2 import Fig2
from aqmlab.reproduce.zlred.fig4 import Fig4
from aqmlab.reproduce.zlred.fig5 import Fig5
from aqmlab.reproduce.zlred.fig6 import Fig6, Fig6Readings

EXPERIMENTS = [Fig2(), Fig4(), Fig5(), Fig6(), Fig6Readings()]
