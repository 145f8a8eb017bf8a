"""docs/dks_jk_model_search.py: the JK model search that docs/reproductions.md quotes keeps working and
keeps telling the two regimes apart."""

from __future__ import annotations

import random

import pytest

from support import load_docs_script


@pytest.fixture(scope="module")
def search():
    return load_docs_script("dks_jk_model_search.py")


def test_a_drawn_model_sets_every_key_on_the_jk_flows_and_the_telnet_keys_on_the_telnets(search) -> None:
    model = search.draw(random.Random(3))
    assert set(model) == set(search.READINGS) | set(search.TELNET_READINGS)
    out = search.overrides({"link.gateway.queue": "q"}, model)
    assert out["link.gateway.queue"] == "q"
    for key, value in model.items():
        if value is None:
            assert not any(k.endswith(f".{key}") for k in out)
        elif key in search.TELNET_READINGS:
            assert out[f"flow.telnet{{i}}.{key}"] == value and f"flow.ftp{{i}}.{key}" not in out
        else:
            assert out[f"flow.ftp{{i}}.{key}"] == out[f"flow.telnet{{i}}.{key}"] == value


def test_the_search_separates_the_lock_in_from_the_papers_row(search) -> None:
    """Seed 1: the reproduction proper's JK (no key changed) locks FTPs in under the cap, while the
    docs' best uncapped model (first duplicate, Telnets without backlog) gives the paper's whole row."""
    proper = search.run_model(({}, [1], False, "JK/FCFS"))["runs"][0]
    assert proper["jain"] < 0.9 and max(proper["ftp"]) > 1000, proper
    assert not search.paper_row(proper)
    best = {
        "dupack_threshold": "1",
        "rtt_timing": "one_at_a_time",
        "rto_k": "2",
        "min_rto": "1s",
        "max_rto": "unbounded",
        "timeout_ssthresh": "half_flight",
        "fast_retransmit_ssthresh": "half_flight",
        "slow_start_at_ssthresh": "true",
        "initial_ssthresh": "2",
        "clear_srtt_after_backoffs": "4",
        "after_fast_retransmit": "resume",
        "on_full_window": "skip",
    }
    uncapped = search.run_model((best, [1], True, "JK/FCFS"))["runs"][0]
    assert search.paper_row(uncapped), uncapped
    summary = search.summarise([{"model": {"dupack_threshold": "3"}, "runs": [proper]}])
    assert "0 of 1" in summary


def test_under_fq_the_propers_jk_loses_more_packets_than_it_retransmits(search) -> None:
    """The JK/FQ search's criterion, on the reproduction proper's JK (seed 1): the FTPs share, but lose
    more packets than they retransmit, where the paper's six retransmit at least as often."""
    run = search.run_model(({}, [1], False, "JK/FQ"))["runs"][0]
    assert run["jain"] > 0.99 and run["drops"] > run["retx"], run
    assert not search.paper_row(run, "JK/FQ")
    assert search.paper_row({**run, "drops": 60.0, "retx": 70.0, "rtt_s": 1.9}, "JK/FQ")
