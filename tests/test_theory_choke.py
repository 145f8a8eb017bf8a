"""CHOKe's analytic models (Pan, Prabhakar & Psounis, INFOCOM 2000, Sec. IV) against the paper's
Tables II and III, and against aqmlab simulating the same queues.

The simulated queue is the paper's model: independent Poisson flows (kind "poisson") with
exponential packet sizes into one link, so service times are exponential with rate mu = link
rate / (8 x mean size); FIFO, infinite buffer (limit = "unbounded"); every arrival is compared
(min_th = 0) and RED never drops (max_p = 0, max_th out of reach). Front CHOKe compares the
arrival with the packet in service and a match aborts its transmission; back CHOKe compares
with the flows of the last M admitted packets.

Run with ``-s`` to see simulated and theoretical values side by side.
"""

from __future__ import annotations

import numpy as np
import pytest

import aqmlab
from aqmlab import theory

# Mean packet 1000 B: a link of 8 Mbps serves mu = 1000 packets/s. Rates below are in units of mu.
PPS = 1000.0
MODEL_QUEUE = 'min_th = 0, max_th = 1e12, max_p = 0, limit = "unbounded"'

# Table II: mu = 1, arrival rates, and the paper's Theory columns (P0, T_i), printed to 3 places.
TABLE_II = [
    ([0.5, 1.0], 0.417, [0.250, 0.333]),
    ([1.0, 2.0], 0.267, [0.333, 0.400]),
    ([2.0, 3.0], 0.171, [0.400, 0.429]),
    ([3.0, 4.0], 0.127, [0.429, 0.444]),
    ([3.0, 5.0], 0.117, [0.429, 0.455]),
    ([3.0, 6.0], 0.110, [0.429, 0.462]),
    ([0.3, 0.6, 0.9], 0.218, [0.188, 0.273, 0.321]),
    ([0.5, 1.0, 1.5], 0.042, [0.250, 0.333, 0.375]),
]

# Table III: memory M, arrival rates, and T_i (share of admitted packets), printed to 4 places.
# (The OCR shifted the first row one column; N = 4, M = 0, lambda = (1, 1, 1, 7).)
TABLE_III = [
    (0, [1, 1, 1, 7], [0.1, 0.1, 0.1, 0.7]),
    (1, [1, 1, 1, 7], [0.1875, 0.1875, 0.1875, 0.4375]),
    (2, [1, 1, 1, 7], [0.2273, 0.2273, 0.2273, 0.3182]),
    (3, [1, 1, 1, 7], [0.25, 0.25, 0.25, 0.25]),
    (1, [1, 2, 3, 4], [0.1286, 0.2286, 0.3000, 0.3429]),
    (2, [1, 2, 3, 4], [0.1733, 0.2533, 0.2800, 0.2933]),
    (3, [1, 2, 3, 4, 5], [0.1405, 0.1953, 0.2135, 0.2226, 0.2281]),
    (3, [1, 3, 5, 7, 9], [0.1101, 0.2034, 0.2220, 0.2300, 0.2345]),
]


def model_queue_scenario(queue: str, rates: list[float], link_mu: float, seconds: int, seed: int) -> str:
    """One link a -> b of service rate ``link_mu`` (units of PPS) fed by Poisson flows."""
    text = f"""
[simulation]
duration = "{seconds}s"
warmup = "20s"
seed = {seed}

[[link]]
name = "bottleneck"
between = ["a", "b"]
rate = "{round(link_mu * PPS * 8000)}bps"
queue = {{ discipline = "choke", {queue}, {MODEL_QUEUE} }}
"""
    for i, lam in enumerate(rates, start=1):
        text += f"""
[[flow]]
name = "f{i}"
src = "a"
dst = "b"
kind = "poisson"
rate = "{round(lam * PPS * 8000)}bps"
packet_size = {{ dist = "exponential", mean = 1000 }}
"""
    return text


def simulate(queue: str, rates: list[float], link_mu: float, seconds: int, seed: int = 11) -> aqmlab.Results:
    return aqmlab.run(aqmlab.loads(model_queue_scenario(queue, rates, link_mu, seconds, seed), name="choke-model"))


def window_s(results: aqmlab.Results) -> float:
    return results.raw["sim_time_s"] - results.raw["measure_from_s"]


def side_by_side(label: str, simulated: list[float], theoretical: list[float]) -> None:
    pairs = "  ".join(f"{s:.4f}|{t:.4f}" for s, t in zip(simulated, theoretical))
    print(f"\n{label}: sim|theory {pairs}")


# ---------------------------------------------------------------------------------------------
# The formulas reproduce the paper's theory columns


@pytest.mark.parametrize(("rates", "p0", "goodput"), TABLE_II)
def test_front_choke_formula_gives_table_two_theory(rates, p0, goodput):
    model = theory.front_choke(rates, mu=1.0)
    assert model.stable
    assert model.p0 == pytest.approx(p0, abs=5e-4 + 1e-12)
    assert model.goodput == pytest.approx(goodput, abs=5e-4 + 1e-12)
    assert model.drop_fraction == pytest.approx(2 * np.array(goodput), abs=1e-3 + 1e-12)


@pytest.mark.parametrize(("memory", "rates", "shares"), TABLE_III)
def test_back_choke_chain_gives_table_three(memory, rates, shares):
    assert theory.back_choke(rates, memory) == pytest.approx(shares, abs=5e-5 + 1e-12)


@pytest.mark.parametrize(("n", "memory"), [(3, 1), (4, 2), (5, 2), (5, 3), (6, 4)])
def test_back_choke_chain_agrees_with_the_product_form(n, memory):
    rng = np.random.default_rng(n * 10 + memory)
    for _ in range(5):
        rates = rng.uniform(0.1, 10.0, n)
        exact = theory.back_choke(rates, memory)
        assert exact.sum() == pytest.approx(1.0)
        assert exact == pytest.approx(theory.back_choke_closed_form(rates, memory), abs=1e-12)


def test_front_choke_flags_instability():
    # Three flows, each alone near p = 1/2: sum p_i > 1.
    assert not theory.front_choke([10.0, 10.0, 10.0], mu=1.0).stable
    assert np.isnan(theory.front_choke([10.0, 10.0, 10.0], mu=1.0).p0)
    # Two flows are always stable (p_i < 1/2).
    assert theory.front_choke([1e6, 1e6], mu=1.0).stable


def test_back_choke_refuses_memory_that_admits_nothing():
    with pytest.raises(ValueError, match="memory"):
        theory.back_choke([1, 2, 3], 3)


# ---------------------------------------------------------------------------------------------
# The simulator reproduces the models


@pytest.mark.parametrize(("rates", "p0", "goodput"), TABLE_II)
def test_simulated_front_choke_matches_the_model(rates, p0, goodput):
    model = theory.front_choke(rates, mu=1.0)
    r = simulate('variant = "front"', rates, link_mu=1.0, seconds=1000)
    sim_goodput = (r.flows["delivered_pkts"] / window_s(r) / PPS).to_numpy()
    sim_p0 = 1.0 - float(r.links.loc[r.links["name"] == "bottleneck", "utilization"].iloc[0])
    sim_drops = (r.flows["dropped_pkts"] / r.flows["sent_pkts"]).to_numpy()
    side_by_side(f"front CHOKe {rates}: P0, T_i", [sim_p0, *sim_goodput], [model.p0, *model.goodput])
    side_by_side(f"front CHOKe {rates}: drop fraction", list(sim_drops), list(model.drop_fraction))
    assert sim_p0 == pytest.approx(model.p0, abs=0.01)
    assert sim_goodput == pytest.approx(model.goodput, abs=0.01)
    assert sim_drops == pytest.approx(model.drop_fraction, abs=0.01)
    # Every drop is a match: the arrival and the packet in service.
    assert set(r.raw["links"][0]["drops_by_reason"]) == {"match"}


@pytest.mark.parametrize(("memory", "rates", "shares"), TABLE_III)
def test_simulated_back_choke_matches_the_model(memory, rates, shares):
    model = theory.back_choke(rates, memory)
    # Rates in units of 0.1 mu; a link of twice the total offered rate keeps the queue stable
    # (the shares do not depend on mu).
    scaled = [0.1 * lam for lam in rates]
    r = simulate(f'variant = "back", memory = {memory}', scaled, link_mu=2 * sum(scaled), seconds=1000)
    delivered = r.flows["delivered_pkts"].to_numpy(dtype=float)
    sim_shares = delivered / delivered.sum()
    side_by_side(f"back CHOKe M={memory} {rates}: T_i", list(sim_shares), list(model))
    assert sim_shares == pytest.approx(model, abs=0.01)
    assert r.raw["links"][0]["drops_by_reason"].keys() <= {"match"}
