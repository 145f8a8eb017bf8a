"""aqmlab.theory's queueing and fairness formulas: hand-computed cases, and M/M/1 and M/D/1
against the simulator (a DropTail link with an unbounded buffer fed by Poisson flows)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aqmlab
from aqmlab import theory


def test_mm1_and_md1_formulas():
    m = theory.mm1(0.5, 1.0)
    assert (m.rho, m.wait, m.sojourn, m.queue_length, m.in_system) == pytest.approx((0.5, 1.0, 2.0, 0.5, 1.0))
    d = theory.md1(0.5, 1.0)
    assert (d.wait, d.queue_length, d.in_system) == pytest.approx((0.5, 0.25, 0.75))
    # Deterministic service halves M/M/1's waiting (Pollaczek-Khinchine).
    for rho in (0.1, 0.5, 0.9):
        assert theory.md1(rho, 1.0).wait == pytest.approx(theory.mm1(rho, 1.0).wait / 2)
    with pytest.raises(ValueError, match="unstable"):
        theory.mm1(1.0, 1.0)


def test_jain_index():
    assert theory.jain([1, 1, 1, 1]) == pytest.approx(1.0)
    assert theory.jain([1, 0, 0, 0]) == pytest.approx(0.25)
    assert theory.jain([1, 2]) == pytest.approx(9 / 10)
    assert theory.jain([]) is None
    assert theory.jain([0, 0]) is None


def test_max_min_fair_water_fills_one_link():
    # Capacity 10: the two small demands are met, the rest share 10 - 1 - 2 = 7.
    assert theory.max_min_fair([1, 2, 5, math.inf], 10) == pytest.approx([1, 2, 3.5, 3.5])
    assert theory.max_min_fair([4, 4], 10) == pytest.approx([4, 4])
    # Weighted: weights 1 and 3 of 8 units.
    assert theory.max_min_fair([math.inf, math.inf], 8, weights=[1, 3]) == pytest.approx([2, 6])


def test_max_min_fair_network_progressive_filling():
    # Links 0 (capacity 1) and 1 (capacity 2); flow 0 on link 0, flow 1 on link 1, flow 2 on
    # both: link 0 fills at 0.5 each, then flow 1 takes the rest of link 1.
    rates = theory.max_min_fair_network([math.inf] * 3, [[0], [1], [0, 1]], [1, 2])
    assert rates == pytest.approx([0.5, 1.5, 0.5])
    # One link: the same as water-filling.
    rng = np.random.default_rng(3)
    for _ in range(20):
        demands = rng.uniform(0, 5, 6)
        assert theory.max_min_fair_network(demands, [[0]] * 6, [10]) == pytest.approx(theory.max_min_fair(demands, 10))


def poisson_queue(rho: float, exponential: bool) -> aqmlab.Results:
    """A 8 Mbps link (mu = 1000 packets/s of 1000 B on average) with an unbounded FIFO, fed by
    two Poisson flows of total rate rho * mu."""
    size = '{ dist = "exponential", mean = 1000 }' if exponential else "1000"
    rate = round(rho * 8_000_000 / 2)
    text = f"""
[simulation]
duration = "1000s"
warmup = "20s"
seed = 5

[[link]]
name = "q"
between = ["a", "b"]
rate = "8Mbps"
queue = {{ discipline = "droptail", limit = "unbounded" }}

[[flow]]
name = "p{{i}}"
count = 2
src = "a"
dst = "b"
kind = "poisson"
rate = "{rate}bps"
packet_size = {size}
"""
    return aqmlab.run(aqmlab.loads(text, name="mm1"))


@pytest.mark.parametrize("rho", [0.5, 0.8])
@pytest.mark.parametrize("exponential", [True, False])
def test_simulated_single_queues_match_mm1_and_md1(rho, exponential):
    model = (theory.mm1 if exponential else theory.md1)(rho * 1000.0, 1000.0)
    link = poisson_queue(rho, exponential).raw["links"][0]
    print(
        f"\n{'M/M/1' if exponential else 'M/D/1'} rho={rho}: L_q sim|theory {link['mean_queue_pkts']:.4f}|{model.queue_length:.4f}"
        f"  W_q (ms) {1e3 * link['mean_qdelay_s']:.4f}|{1e3 * model.wait:.4f}  busy {link['utilization']:.4f}|{model.rho:.4f}"
    )
    assert link["utilization"] == pytest.approx(model.rho, abs=0.01)
    assert link["mean_queue_pkts"] == pytest.approx(model.queue_length, rel=0.05)
    assert link["mean_qdelay_s"] == pytest.approx(model.wait, rel=0.05)
