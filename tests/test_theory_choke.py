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
from aqmlab.reproduce.published import series

# Mean packet 1000 B: a link of 8 Mbps serves mu = 1000 packets/s. Rates below are in units of mu.
PPS = 1000.0
MODEL_QUEUE = 'min_th = 0, max_th = 1e12, max_p = 0, limit = "unbounded"'

# The paper's printed values come from scenarios/papers/choke-2000/published.toml; the inputs
# (arrival rates in units of mu, and Table III's memory M) are the rows' conditions.
TABLE_II_RATES = [
    [0.5, 1.0],
    [1.0, 2.0],
    [2.0, 3.0],
    [3.0, 4.0],
    [3.0, 5.0],
    [3.0, 6.0],
    [0.3, 0.6, 0.9],
    [0.5, 1.0, 1.5],
]
TABLE_III_INPUTS = [
    (0, [1, 1, 1, 7]),
    (1, [1, 1, 1, 7]),
    (2, [1, 1, 1, 7]),
    (3, [1, 1, 1, 7]),
    (1, [1, 2, 3, 4]),
    (2, [1, 2, 3, 4]),
    (3, [1, 2, 3, 4, 5]),
    (3, [1, 3, 5, 7, 9]),
]


def _table_ii() -> list[tuple[list[float], float, list[float]]]:
    """Table II (Pan, Prabhakar, Psounis 2000): rates, the Theory column's P0 and T_i (3 places)."""
    rows = []
    for k, rates in enumerate(TABLE_II_RATES, start=1):
        printed = series("choke-2000", f"table2.row{k}.the")
        rows.append((rates, printed["P0"].value, [printed[f"T{i}"].value for i in range(1, len(rates) + 1)]))
    return rows


def _table_iii() -> list[tuple[int, list[int], list[float]]]:
    """Table III: memory M, rates, and T_i, the share of admitted packets (up to 4 places)."""
    rows = []
    for k, (memory, rates) in enumerate(TABLE_III_INPUTS, start=1):
        printed = series("choke-2000", f"table3.row{k}")
        rows.append((memory, rates, [printed[f"T{i}"].value for i in range(1, len(rates) + 1)]))
    return rows


TABLE_II = _table_ii()
TABLE_III = _table_iii()


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
