"""docs/dks_decbit_search.py: the selective DECbit search that docs/reproductions.md quotes keeps working,
and its model of the reproduction's own gateway is that gateway."""

from __future__ import annotations

import random

import pytest

import aqmlab
from aqmlab.reproduce import EXPERIMENTS
from support import load_docs_script

#: The reproduction's own choices (the DEC/DEC condition of dks-1989-scenario5).
AS_REPRODUCED = {
    "gateway.selective": "true",
    "gateway.capacity_factor": "0.9",
    "gateway.threshold": "1",
    "gateway.user": "pair",
    "source.window": "rounded",
    "source.beta": "2",
    "source.gain": "0.125",
    "delay": "0ms",
}


@pytest.fixture(scope="module")
def search():
    return load_docs_script("dks_decbit_search.py")


def test_a_drawn_model_sets_the_three_gateways_both_ftp_entries_and_the_host_links(search) -> None:
    model = search.draw(random.Random(4))
    assert set(model) == set(AS_REPRODUCED)
    out = search.overrides({}, model)
    for key in search.GATEWAY_READINGS:
        assert {out[f"link.{line}.queue.{key}"] for line in search.GATEWAY_LINES} == {model[f"gateway.{key}"]}
    assert {out[f"link.{link}.delay"] for link in search.HOST_LINKS} == {model["delay"]}
    assert out["flow.ftp{i}.window"] == out["flow.ftp4.window"] == model["source.window"]


def test_the_reproductions_own_gateway_gives_the_scenarios_own_run(search) -> None:
    """Seed 1: the search's model of the reproduction proper's DEC/DEC is that condition, and its long
    path gets about twice the paper's 783 packets (the rows that differ)."""
    result = search.run_model((AS_REPRODUCED, [1]))
    experiment = EXPERIMENTS["dks-1989-scenario5"]
    condition = next(c for c in experiment.conditions() if c.label == "DEC/DEC")
    flows = aqmlab.run(experiment.scenario_path(condition), seed=1, overrides=condition.overrides).flows
    own = flows.set_index("name")["delivered_pkts"]
    assert result["runs"][0]["packets"] == [int(own[f"ftp{i}"]) for i in range(1, 5)]
    assert result["runs"][0]["packets"][3] > 1.5 * search.PAPER_PACKETS[3]
    assert search.matched(result)[0] < 4
