"""Max-min fair shares of a scenario's flows over its topology, for the ``fair_share`` column of
``aqmlab run``.

The core computes them by progressive filling (Bertsekas & Gallager, *Data Networks*, Sec.
6.5.2) over the flows' demands and forward paths: a constant-rate or Poisson source's rate, an
on-off source's mean rate (peak rate x on / (on + off)), a Telnet's mean rate (one segment per
mean interval); TCP flows are greedy (infinite demand). Every flow is taken as active
throughout; ACKs are ignored. ``aqmlab.theory.max_min_fair_network`` is the same model in numpy,
and the tests check one against the other.
"""

from __future__ import annotations

from collections.abc import Sequence

from aqmlab import _core
from aqmlab._core import Scenario


def scenario_fair_shares(scenario: Scenario, flows: Sequence[str] | None = None) -> dict[str, float]:
    """Flow name -> max-min fair rate in bit/s: of every flow, or of those named in ``flows``
    (the filling is over all of them either way; names of no flow are left out)."""
    if flows is None:
        return scenario.fair_shares()
    if isinstance(flows, str) or not all(isinstance(name, str) for name in flows):
        raise TypeError("flows: expected a sequence of flow names")
    return scenario.fair_shares(list(flows))


def progressive_filling(
    demands: Sequence[float], paths: Sequence[Sequence[int]], capacities: Sequence[float]
) -> list[float]:
    """Max-min fair rates of flows with ``demands`` over ``paths`` (indices into ``capacities``)."""
    return _core.max_min_fair(list(demands), [list(path) for path in paths], list(capacities))
