"""Analytic models to hold simulations against.

- CHOKe's queue models (Pan, Prabhakar & Psounis, "CHOKe", INFOCOM 2000, Sec. IV):
  :func:`front_choke` (Sec. IV-A, eq. (1)-(2), Table II) and :func:`back_choke` (Sec. IV-B,
  eq. (4)-(5), Table III), solved exactly; :func:`back_choke_closed_form` for cross-checking.
- Single queues: :func:`mm1`, :func:`md1` (mean waiting time and queue lengths).
- Fairness: :func:`jain` (Jain's index), :func:`max_min_fair` (water-filling on one link) and
  :func:`max_min_fair_network` (progressive filling over several links).
- Fair Queueing's Telnet delay (Demers, Keshav & Shenker, SIGCOMM 1989, Sec. 2.3, Fig. 1):
  :func:`dks_fq_telnet_delay` (nonpreemptive FQ) and :func:`dks_fcfs_telnet_delay` (FCFS).

Rates are in any consistent unit (packets per second, or per mean service time); results are
numpy arrays in the order of the input.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

import numpy as np

__all__ = [
    "FrontChoke",
    "QueueMetrics",
    "back_choke",
    "back_choke_closed_form",
    "dks_fcfs_telnet_delay",
    "dks_fq_telnet_delay",
    "front_choke",
    "jain",
    "max_min_fair",
    "max_min_fair_network",
    "md1",
    "mm1",
]


def _rates(values: Sequence[float], what: str = "rates") -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{what} must be a non-empty list of numbers")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"{what} must be finite and not negative, got {list(values)}")
    return array


# ---------------------------------------------------------------------------------------------
# CHOKe


@dataclass(frozen=True)
class FrontChoke:
    """Front CHOKe with Poisson flows and exponential service (Pan et al. 2000, Sec. IV-A).

    - ``p[i]``: probability that flow i's packet is at the head of the queue (in service);
      p_i = lambda_i / (mu + 2 lambda_i), eq. (1);
    - ``goodput[i]`` = mu p_i, flow i's departure rate (the T_i of Table II);
    - ``drop_fraction[i]`` = 2 p_i: the share of flow i's arrivals lost, on arrival or at the
      head of the queue (drops come in pairs);
    - ``p0`` = 1 - sum p_i, the probability that the queue is empty (``nan`` when unstable);
    - ``stable``: sum p_i < 1, eq. (2). When False the queue grows without bound and the other
      numbers do not describe it.
    """

    p: np.ndarray
    goodput: np.ndarray
    drop_fraction: np.ndarray
    p0: float
    stable: bool


def front_choke(rates: Sequence[float], mu: float) -> FrontChoke:
    """Front CHOKe: every arrival is compared with the packet at the head of the FIFO (the one
    in service) and both are dropped when their flows match; infinite buffer, FIFO service.

    ``rates`` are the Poisson arrival rates lambda_i, ``mu`` the service rate. PASTA makes an
    arrival of flow i see flow i at the head with probability p_i, and rate conservation
    lambda_i (1 - 2 p_i) = mu p_i gives p_i = lambda_i / (mu + 2 lambda_i), independent of
    the other flows.
    """
    lam = _rates(rates)
    if not mu > 0:
        raise ValueError(f"mu must be above 0, got {mu}")
    p = lam / (mu + 2.0 * lam)
    total = float(p.sum())
    stable = total < 1.0
    return FrontChoke(p=p, goodput=mu * p, drop_fraction=2.0 * p, p0=1.0 - total if stable else math.nan, stable=stable)


def _back_states(n: int, memory: int) -> list[tuple[int, ...]]:
    if memory < 0:
        raise ValueError(f"memory must not be negative, got {memory}")
    if memory >= n:
        raise ValueError(
            f"memory ({memory}) must be below the number of flows ({n}): with every flow in Mloc nothing is admitted"
        )
    return list(permutations(range(n), memory))


def back_choke(rates: Sequence[float], memory: int) -> np.ndarray:
    """Back CHOKe with memory ``memory`` = M (Pan et al. 2000, Sec. IV-B): each flow's share of
    the admitted packets (the T_i of Table III), independent of the service rate.

    Mloc holds the flows of the last M admitted packets; an arrival whose flow is in Mloc is
    dropped, any other is admitted. With independent Poisson flows the sequence of Mloc
    contents is a Markov chain over ordered M-tuples of distinct flows, with
    P(s -> (s_2 .. s_M, k)) = lambda_k / (S - sum_{j in s} lambda_j) for k not in s. This
    builds the N!/(N-M)! states, solves pi P = pi exactly (numpy linear solve) and returns the
    probability that the most recently admitted packet is flow i. M = 0 admits everything:
    T_i = lambda_i / S; M = N - 1 is round robin: T_i = 1/N.
    """
    lam = _rates(rates)
    if np.any(lam <= 0):
        raise ValueError("back CHOKe needs every rate above 0")
    n = lam.size
    if memory == 0:
        return lam / lam.sum()
    states = _back_states(n, memory)
    if memory == n - 1:
        # One flow is never in Mloc, and only it can be admitted: round robin (the paper's
        # "N - M = 1"). The chain is then a set of closed cycles and has no unique pi.
        return np.full(n, 1.0 / n)
    index = {s: k for k, s in enumerate(states)}
    total = lam.sum()
    transition = np.zeros((len(states), len(states)))
    for k, s in enumerate(states):
        free = total - lam[list(s)].sum()
        for flow in range(n):
            if flow not in s:
                transition[k, index[s[1:] + (flow,)]] = lam[flow] / free
    # pi (P - I) = 0 with sum pi = 1: replace one balance equation by the normalisation.
    system = (transition - np.eye(len(states))).T
    system[-1, :] = 1.0
    rhs = np.zeros(len(states))
    rhs[-1] = 1.0
    pi = np.linalg.solve(system, rhs)
    share = np.zeros(n)
    for k, s in enumerate(states):
        share[s[-1]] += pi[k]
    return share


def back_choke_closed_form(rates: Sequence[float], memory: int) -> np.ndarray:
    """Back CHOKe's shares from the product form pi(s) ~ prod_k lambda_{s_k} (S - sum_k
    lambda_{s_k}): the paper's eq. (4) for M = 1 and eq. (5) for M = 2, and its extension to
    any M (derived by us, not printed in the paper). For cross-checking
    :func:`back_choke`.
    """
    lam = _rates(rates)
    n = lam.size
    if memory == 0:
        return lam / lam.sum()
    total = lam.sum()
    share = np.zeros(n)
    for s in _back_states(n, memory):
        members = lam[list(s)]
        share[s[-1]] += float(np.prod(members)) * (total - members.sum())
    return share / share.sum()


# ---------------------------------------------------------------------------------------------
# Single queues


@dataclass(frozen=True)
class QueueMetrics:
    """Mean values of a stable single-server queue (time in the units of 1/mu).

    ``rho`` utilisation; ``wait`` mean time waiting before service (W_q); ``sojourn`` mean
    time in the system (W = W_q + 1/mu); ``queue_length`` mean number waiting (L_q, not
    counting the one in service: what aqmlab reports as ``mean_queue_pkts``);
    ``in_system`` mean number in the system (L). Little's law links them: L_q = lambda W_q.
    """

    rho: float
    wait: float
    sojourn: float
    queue_length: float
    in_system: float


def _load(lam: float, mu: float) -> float:
    if not (lam >= 0 and mu > 0):
        raise ValueError(f"need lam >= 0 and mu > 0, got lam={lam}, mu={mu}")
    rho = lam / mu
    if rho >= 1:
        raise ValueError(f"the queue is unstable: rho = lam/mu = {rho} >= 1")
    return rho


def mm1(lam: float, mu: float) -> QueueMetrics:
    """M/M/1: Poisson arrivals at ``lam``, exponential service at ``mu``.
    W_q = rho / (mu - lam), L_q = rho^2 / (1 - rho)."""
    rho = _load(lam, mu)
    wait = rho / (mu - lam)
    return QueueMetrics(
        rho=rho, wait=wait, sojourn=wait + 1 / mu, queue_length=lam * wait, in_system=lam * (wait + 1 / mu)
    )


def md1(lam: float, mu: float) -> QueueMetrics:
    """M/D/1: Poisson arrivals at ``lam``, constant service time 1/``mu`` (Pollaczek-Khinchine).
    W_q = rho / (2 mu (1 - rho)), L_q = rho^2 / (2 (1 - rho))."""
    rho = _load(lam, mu)
    wait = rho / (2 * mu * (1 - rho))
    return QueueMetrics(
        rho=rho, wait=wait, sojourn=wait + 1 / mu, queue_length=lam * wait, in_system=lam * (wait + 1 / mu)
    )


# ---------------------------------------------------------------------------------------------
# Fairness


def jain(xs: Sequence[float]) -> float | None:
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 for equal shares, 1/n when one of n
    takes everything. ``None`` for no values or all zero (as in the results document)."""
    values = np.asarray(xs, dtype=float)
    square_sum = float(np.sum(values**2))
    if values.size == 0 or square_sum == 0:
        return None
    return float(values.sum() ** 2 / (values.size * square_sum))


def max_min_fair(demands: Sequence[float], capacity: float, weights: Sequence[float] | None = None) -> np.ndarray:
    """Max-min fair shares of one link of ``capacity`` (water-filling): no flow gets more than
    it demands, and a flow gets less only if every flow getting more is at its own demand.
    With ``weights`` the fair level is per unit of weight (weighted max-min). Demands may be
    ``inf`` (greedy flows)."""
    demand = np.asarray(demands, dtype=float)
    weight = np.ones_like(demand) if weights is None else _rates(weights, "weights")
    if weight.shape != demand.shape or np.any(weight <= 0):
        raise ValueError("weights must be positive, one per demand")
    if np.any(np.isnan(demand)) or np.any(demand < 0) or not capacity >= 0:
        raise ValueError("demands and capacity must not be negative")
    share = np.zeros_like(demand)
    active = np.ones(demand.size, dtype=bool)
    left = float(capacity)
    while active.any() and left > 0:
        level = left / weight[active].sum()
        # Flows whose demand is under the fair level get their demand; the rest share again.
        satisfied = active & (demand <= level * weight)
        if not satisfied.any():
            share[active] = level * weight[active]
            break
        share[satisfied] = demand[satisfied]
        left -= float(demand[satisfied].sum())
        active &= ~satisfied
    return share


def max_min_fair_network(
    demands: Sequence[float], paths: Sequence[Sequence[int]], capacities: Sequence[float]
) -> np.ndarray:
    """Max-min fair rates of flows over several links (progressive filling, Bertsekas &
    Gallager Sec. 6.5.2): every unfrozen flow's rate rises at the same speed until a link on
    its path fills or it reaches its demand; flows crossing a full link are frozen.

    ``paths[i]`` lists the indices (into ``capacities``) of the links flow i crosses.
    """
    demand = np.asarray(demands, dtype=float)
    capacity = np.asarray(capacities, dtype=float)
    if len(paths) != demand.size:
        raise ValueError("one path per demand")
    uses = np.zeros((demand.size, capacity.size))
    for i, path in enumerate(paths):
        for link in path:
            uses[i, link] = 1.0
    rate = np.zeros_like(demand)
    active = demand > 0
    while active.any():
        load = rate @ uses
        crossing = active @ uses
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(crossing > 0, (capacity - load) / crossing, np.inf)
        step = min(float(room.min()), float((demand[active] - rate[active]).min()))
        rate[active] += step
        load = rate @ uses
        full = np.isclose(load, capacity, rtol=1e-12, atol=1e-12 * max(1.0, float(capacity.max(initial=1.0))))
        frozen = (uses[:, full].sum(axis=1) > 0) | np.isclose(rate, demand)
        active &= ~frozen
        if step == np.inf:
            raise ValueError("a flow with unbounded demand crosses no link")
    return rate


# ---------------------------------------------------------------------------------------------
# Fair Queueing: the Telnet's delay against its throughput (DKS 1989, Fig. 1)


def _dks_rho(rho: float, n: int) -> tuple[float, int]:
    rho = float(rho)
    if not (math.isfinite(rho) and rho >= 0):
        raise ValueError(f"rho must be finite and not negative, got {rho}")
    if int(n) != n or n < 1:
        raise ValueError(f"n (the number of FTPs) must be a whole number >= 1, got {n}")
    return rho, int(n)


def dks_fq_telnet_delay(rho: float, n: int = 3, delta_over_p: float = 0.0, first_term: str = "printed") -> float:
    """Mean queueing delay, in units of P/mu, of a Poisson Telnet source at a nonpreemptive
    Fair Queueing gateway shared with ``n`` FTP conversations that always have packets ready
    (Demers, Keshav & Shenker, "Analysis and Simulation of a Fair Queueing Algorithm", SIGCOMM
    1989, Sec. 2.3, the curves of Fig. 1):

        D_N(P)/P = T + N rho / 2 + N (1 - rho) [1/2 - (N + 1)/(N rho) (1 - exp(-rho N m / (N + 1)))]

    with m = min(delta/P, (1 - 1/N)/2), packet sizes P_T = P_F = P, the FTPs' finish numbers
    offset by a/N of a packet (a = 0 .. N-1), and rho = (N + 1) lambda P / mu the Telnet's
    throughput relative to its fair share (0 <= rho < 1). As rho -> 0 the delay tends to
    N (1/2 - m): N/2 for delta = 0 and 1/2 for delta = P with N = 3; it diverges as rho -> 1.

    ``first_term`` picks T, the bit-by-bit round robin's own queueing delay:

    - ``"printed"``: T = rho / (2 (1 - rho)), as the paper's formula reads;
    - ``"br"``: T = (N + 1) rho / (2 (1 - rho)), which is what the paper's text says it is,
      D_0((N + 1) P_T), the M/D/1 wait of a sole Poisson source whose packets are (N + 1) P
      long (the Telnet gets mu / (N + 1) while the N FTPs are active). aqmlab's simulation of
      Fig. 1 follows this one (within a few per cent for rho <= 0.6); the two agree as rho -> 0.
    """
    rho, n = _dks_rho(rho, n)
    if rho >= 1:
        return math.inf
    if not (math.isfinite(delta_over_p) and delta_over_p >= 0):
        raise ValueError(f"delta_over_p must be finite and not negative, got {delta_over_p}")
    if first_term == "printed":
        t = rho / (2 * (1 - rho))
    elif first_term == "br":
        t = (n + 1) * rho / (2 * (1 - rho))
    else:
        raise ValueError(f"first_term must be 'printed' or 'br', got {first_term!r}")
    m = min(delta_over_p, 0.5 * (1 - 1 / n))
    if rho == 0:
        inner = m  # (N + 1)/(N rho) (1 - exp(-rho N m / (N + 1))) -> m
    else:
        inner = -(n + 1) / (n * rho) * math.expm1(-rho * n * m / (n + 1))
    return t + n * rho / 2 + n * (1 - rho) * (0.5 - inner)


def dks_fcfs_telnet_delay(rho: float, n: int = 3, window: int = 5) -> float:
    """Mean queueing delay, in units of P/mu, of a Poisson Telnet source at an FCFS gateway
    where ``n`` FTPs with window ``window`` keep n W packets in the queue or in transmission at
    all times (DKS 1989, Fig. 1; the paper plots this curve but prints only its limit
    (N W - 1/2) P as rho -> 0).

    Derivation (ours; the paper states only the assumptions): an arriving Telnet packet (Poisson arrivals see
    time averages) finds the N W FTP packets and, on average, L Telnet packets, one of them
    in service with half its time left: D = N W - 1/2 + L. Little's law gives L = x (D + 1)
    with x = rho / (N + 1) the Telnet's share of the line, so D = (N W - 1/2 + x) / (1 - x).
    It stays finite for every rho < N + 1 (the FTPs yield the rest of the line): an
    ill-behaved source can take almost all of it.
    """
    rho, n = _dks_rho(rho, n)
    if int(window) != window or window < 1:
        raise ValueError(f"window must be a whole number >= 1, got {window}")
    x = rho / (n + 1)
    if x >= 1:
        return math.inf
    return (n * window - 0.5 + x) / (1 - x)
