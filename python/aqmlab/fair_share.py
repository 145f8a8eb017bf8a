"""Max-min fair shares of a scenario's flows over its topology, for the ``fair_share`` column of
``aqmlab run``.

Progressive filling (Bertsekas & Gallager, *Data Networks*, Sec. 6.5.2): every flow's rate rises
at the same speed until a link on its path is full or the flow reaches its demand; flows crossing
a full link stop there. In plain Python, so ``aqmlab run`` needs no numpy;
``aqmlab.theory.max_min_fair_network`` is the same model in numpy, and the tests check one
against the other.

Demands come from the flows' parameters: a constant-rate or Poisson source's rate, an on-off
source's mean rate (peak rate x on / (on + off)), a Telnet's mean rate (one segment per mean
interval); TCP flows are greedy (infinite demand). Every flow is taken as active throughout;
ACKs are ignored.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any


def scenario_fair_shares(expanded: Mapping[str, Any]) -> dict[str, float]:
    """Flow name -> max-min fair rate in bit/s, from an expanded scenario (``Scenario.to_json()``)."""
    capacities = [float(link["rate_bps"]) for link in expanded["links"]]
    flows = expanded["flows"]
    rates = progressive_filling(
        [flow_demand(flow["params"]) for flow in flows], [flow["fwd"] for flow in flows], capacities
    )
    return {flow["name"]: rate for flow, rate in zip(flows, rates)}


def flow_demand(params: Mapping[str, Any]) -> float:
    """The rate a flow would send at with the network to itself, bit/s (``inf`` for greedy flows)."""
    kind = params["kind"]
    if kind in ("cbr", "poisson"):
        return float(params["rate_bps"])
    if kind == "onoff":
        on, off = params["mean_on_ns"], params["mean_off_ns"]
        return float(params["rate_bps"]) * on / (on + off)
    if kind == "telnet":
        return params["packet_size"] * 8 / (params["mean_interval_ns"] * 1e-9)
    return math.inf


def progressive_filling(
    demands: Sequence[float], paths: Sequence[Sequence[int]], capacities: Sequence[float]
) -> list[float]:
    """Max-min fair rates of flows with ``demands`` over ``paths`` (indices into ``capacities``)."""
    rate = [0.0] * len(demands)
    active = {i for i, demand in enumerate(demands) if demand > 0 and paths[i]}
    load = [0.0] * len(capacities)
    while active:
        crossing = [0] * len(capacities)
        for i in active:
            for link in paths[i]:
                crossing[link] += 1
        room = min(
            (capacities[link] - load[link]) / crossing[link] for link in range(len(capacities)) if crossing[link]
        )
        step = max(0.0, min(room, min(demands[i] - rate[i] for i in active)))
        for i in active:
            rate[i] += step
            for link in paths[i]:
                load[link] += step
        full = {
            link for link in range(len(capacities)) if crossing[link] and load[link] >= capacities[link] * (1 - 1e-12)
        }
        active = {i for i in active if rate[i] < demands[i] * (1 - 1e-12) and not full.intersection(paths[i])}
    return rate
