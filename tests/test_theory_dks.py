"""The Fair Queueing paper's Telnet delay curves (Demers, Keshav & Shenker 1989, Fig. 1)."""

from __future__ import annotations

import math

import pytest

from aqmlab.reproduce.published import series
from aqmlab.theory import dks_fcfs_telnet_delay, dks_fq_telnet_delay


def test_the_limits_the_paper_prints_as_rho_goes_to_zero() -> None:
    # (NW - 1/2)P for FCFS, NP/2 for FQ with delta = 0, P/2 for delta = P (N = 3, W = 5), as
    # printed in the text of Fig. 1 (scenarios/papers/dks-1989/published.toml, fig1.limit).
    limit = {k: n.value for k, n in series("dks-1989", "fig1.limit").items()}
    assert dks_fcfs_telnet_delay(0.0) == pytest.approx(limit["FCFS"])
    assert dks_fq_telnet_delay(0.0) == pytest.approx(limit["FQ delta=0"])
    assert dks_fq_telnet_delay(0.0, delta_over_p=1.0) == pytest.approx(limit["FQ delta=P"])
    # Continuous at 0 (the 1 - exp term is evaluated without cancellation).
    assert dks_fq_telnet_delay(1e-12, delta_over_p=1.0) == pytest.approx(0.5, rel=1e-9)
    for term in ("printed", "br"):
        assert dks_fq_telnet_delay(1e-9, 3, 0.0, term) == pytest.approx(1.5, rel=1e-6)


def test_delta_beyond_half_a_round_brings_nothing_more() -> None:
    # m = min(delta / P, (1 - 1/N) / 2): with N = 3 anything above P/3 is the same.
    assert dks_fq_telnet_delay(0.4, delta_over_p=1 / 3) == pytest.approx(dks_fq_telnet_delay(0.4, delta_over_p=5.0))
    assert dks_fq_telnet_delay(0.4, delta_over_p=0.1) > dks_fq_telnet_delay(0.4, delta_over_p=1.0)


def test_fq_diverges_at_its_fair_share_and_fcfs_stays_finite_below_n_plus_one() -> None:
    assert dks_fq_telnet_delay(0.999) > 100 * dks_fq_telnet_delay(0.0)
    assert math.isinf(dks_fq_telnet_delay(1.0))
    assert math.isfinite(dks_fcfs_telnet_delay(3.9))
    assert math.isinf(dks_fcfs_telnet_delay(4.0))
    # FCFS, (NW - 1/2 + x) / (1 - x) with x = rho / (N + 1): rho = 3 gives 15.25 / 0.25.
    assert dks_fcfs_telnet_delay(3.0) == pytest.approx(61.0)


def test_the_bit_round_term_is_the_md1_wait_of_a_packet_n_plus_one_times_longer() -> None:
    # "br" differs from "printed" by N rho / (2 (1 - rho)): (N + 1) - 1 times the printed term.
    for rho in (0.1, 0.5, 0.9):
        diff = dks_fq_telnet_delay(rho, 3, 0.0, "br") - dks_fq_telnet_delay(rho, 3, 0.0, "printed")
        assert diff == pytest.approx(3 * rho / (2 * (1 - rho)))


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        dks_fq_telnet_delay(-0.1)
    with pytest.raises(ValueError):
        dks_fq_telnet_delay(0.5, n=0)
    with pytest.raises(ValueError):
        dks_fq_telnet_delay(0.5, delta_over_p=-1)
    with pytest.raises(ValueError):
        dks_fq_telnet_delay(0.5, first_term="other")
    with pytest.raises(ValueError):
        dks_fcfs_telnet_delay(0.5, window=0)
